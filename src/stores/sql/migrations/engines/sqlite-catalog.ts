import { select } from '../select';
import type { CatalogDdl } from './catalog-ddl';

// SQLite: no collation per column is recorded (BINARY unless stated); PRAGMA foreign_key_list.

export const sqliteCatalog: CatalogDdl = {
  collations: async () => new Map(),
  foreignKeys: async (queryInterface, table) =>
    (await select(queryInterface, `PRAGMA foreign_key_list(${queryInterface.quoteIdentifier(table)})`)).map((row) => ({
      column: row.from,
      target: row.table,
      rule: row.on_delete,
    })),
};
