import type { QueryInterface } from 'sequelize';
import type { TypeDdl } from './type-ddl';

// MySQL/MariaDB: utf8mb4 in a no-pad binary collation ('a' ≠ 'a '), which MariaDB names utf8mb4_nopad_bin and
// MySQL 8 utf8mb4_0900_bin; MySQL 8 refuses a literal DEFAULT on TEXT (MariaDB takes it): there a text
// field's default is the store's alone.

const flavours = new WeakMap<QueryInterface, Promise<'mariadb' | 'mysql'>>();

/** Which of the two the server is (asked once a connection). */
function flavourOf(queryInterface: QueryInterface): Promise<'mariadb' | 'mysql'> {
  let known = flavours.get(queryInterface);
  if (!known) {
    known = queryInterface.sequelize
      .query('SELECT VERSION() AS version', { plain: true })
      .then((row) => (/mariadb/i.test(String((row as { version?: unknown } | null)?.version)) ? 'mariadb' : 'mysql'));
    flavours.set(queryInterface, known);
  }
  return known;
}

export const mysqlTypes: TypeDdl = {
  binaryCollation: async (queryInterface) =>
    (await flavourOf(queryInterface)) === 'mariadb'
      ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin'
      : ' CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin',
  string: (length, collation) => `VARCHAR(${length})${collation}`,
  text: (collation) => `TEXT${collation}`,
  textDefaults: async (queryInterface) => (await flavourOf(queryInterface)) === 'mariadb',
};
