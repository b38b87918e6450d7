import type { QueryInterface } from 'sequelize';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { binaryCollation } from '../../../stores/sql/migrations/resource-columns';

// Emails are kept normalised (trimmed, lower-case), so "unique whatever the case" is the service's doing;
// the column itself must then compare exactly, as on SQLite, PostgreSQL and MongoDB. MySQL/MariaDB's default
// utf8mb4 collation held 'josé@…' and 'jose@…' (and 'ß'/'s') equal, and SQL Server's default is
// case-insensitive too: both get the binary collation the module kit gives every string column.

async function makeBinary(queryInterface: QueryInterface): Promise<void> {
  const dialect = queryInterface.sequelize.getDialect();
  const collation = await binaryCollation(queryInterface);
  if (dialect === 'mysql' || dialect === 'mariadb') {
    await queryInterface.sequelize.query(`ALTER TABLE users MODIFY email VARCHAR(254)${collation} NOT NULL`);
  } else if (dialect === 'mssql') {
    // SQL Server cannot change the collation of an indexed column: the unique index goes and comes back.
    await queryInterface.removeIndex('users', 'users_email_unique');
    await queryInterface.sequelize.query(`ALTER TABLE users ALTER COLUMN email NVARCHAR(254)${collation} NOT NULL`);
    await queryInterface.addIndex('users', ['email'], { name: 'users_email_unique', unique: true });
  }
}

export const makeUsersEmailBinary: SqlMigration = {
  name: '0009-users-email-binary',
  up: makeBinary,
  down: async () => undefined,
  keptOnDown: 'the old collation would refuse rows the binary one holds (josé@ beside jose@)',
};
