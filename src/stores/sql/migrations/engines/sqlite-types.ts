import type { TypeDdl } from './type-ddl';

// SQLite: its default BINARY collation already compares by code point; timestamps are text Sequelize writes
// as ISO-like UTC strings with milliseconds, which compare in order.

export const sqliteTypes: TypeDdl = {
  binaryCollation: async () => '',
  string: (length, collation) => `VARCHAR(${length})${collation}`,
  text: (collation) => `TEXT${collation}`,
  textDefaults: async () => true,
};
