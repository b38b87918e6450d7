import type { TypeDdl } from './type-ddl';

// SQL Server: NVARCHAR in Latin1_General_100_BIN2 (code points; its `=` still pads, which the stores correct
// with lengths); Sequelize ignores DATE's length here, hence the explicit DATETIMEOFFSET(3).

export const mssqlTypes: TypeDdl = {
  binaryCollation: async () => ' COLLATE Latin1_General_100_BIN2',
  string: (length, collation) => `NVARCHAR(${length})${collation}`,
  text: (collation) => `NVARCHAR(MAX)${collation}`,
  textDefaults: async () => true,
  timestamp: 'DATETIMEOFFSET(3)',
};
