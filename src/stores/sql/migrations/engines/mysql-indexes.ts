import type { IndexDdl } from './index-ddl';

// MySQL/MariaDB: ADD INDEX with ALGORITHM=INPLACE, LOCK=NONE (writes go on while it builds). They have no
// partial indexes, and a unique index lets any number of NULLs in already.

export const mysqlIndexes: IndexDdl = {
  async addOnline(queryInterface, table, name, columns, exists) {
    if (await exists(name)) return;
    const quote = (identifier: string) => queryInterface.quoteIdentifier(identifier);
    await queryInterface.sequelize.query(
      `ALTER TABLE ${quote(table)} ADD INDEX ${quote(name)} (${columns.map(quote).join(', ')}), ALGORITHM=INPLACE, LOCK=NONE`,
    );
  },
  partialUniqueKeys: false,
};
