import type { TypeDdl } from './type-ddl';

// PostgreSQL: COLLATE "C" (the byte order of UTF-8 is code point order); Sequelize ignores DATE's length here,
// hence the explicit TIMESTAMP(3) WITH TIME ZONE.

export const postgresTypes: TypeDdl = {
  binaryCollation: async () => ' COLLATE "C"',
  string: (length, collation) => `VARCHAR(${length})${collation}`,
  text: (collation) => `TEXT${collation}`,
  textDefaults: async () => true,
  timestamp: 'TIMESTAMP(3) WITH TIME ZONE',
};
