import type { CatalogDdl } from './catalog-ddl';
import type { CheckDdl } from './check-ddl';
import { mssqlCatalog } from './mssql-catalog';
import { mysqlCatalog } from './mysql-catalog';
import { postgresCatalog } from './postgres-catalog';
import { sqliteCatalog } from './sqlite-catalog';
import type { ColumnDdl } from './column-ddl';
import type { IndexDdl } from './index-ddl';
import { mssqlIndexes } from './mssql-indexes';
import { mysqlIndexes } from './mysql-indexes';
import { postgresIndexes } from './postgres-indexes';
import { sqliteIndexes } from './sqlite-indexes';
import { mssqlChecks } from './mssql-checks';
import { mssqlColumns } from './mssql-columns';
import { mssqlRows } from './mssql-rows';
import { mysqlChecks } from './mysql-checks';
import { mysqlColumns } from './mysql-columns';
import { mysqlRows } from './mysql-rows';
import { postgresChecks } from './postgres-checks';
import { postgresColumns } from './postgres-columns';
import { postgresRows } from './postgres-rows';
import type { RowDdl } from './row-ddl';
import type { TypeDdl } from './type-ddl';
import { mssqlTypes } from './mssql-types';
import { mysqlTypes } from './mysql-types';
import { postgresTypes } from './postgres-types';
import { sqliteTypes } from './sqlite-types';
import { sqliteChecks } from './sqlite-checks';
import { sqliteColumns } from './sqlite-columns';
import { sqliteRows } from './sqlite-rows';

// Each engine's statements for the kit's schema changes, by concern: what its catalog says of a table, its
// CHECK constraints, its column
// changes, its indexes, its batch reads and writes, its column types. The migration helpers ask
// `ddlOf(dialect)` and hold no engine branch.

export interface EngineDdl {
  catalog: CatalogDdl;
  checks: CheckDdl;
  columns: ColumnDdl;
  indexes: IndexDdl;
  rows: RowDdl;
  types: TypeDdl;
}

const MYSQL: EngineDdl = {
  catalog: mysqlCatalog,
  checks: mysqlChecks,
  columns: mysqlColumns,
  indexes: mysqlIndexes,
  rows: mysqlRows,
  types: mysqlTypes,
};

const ENGINES: Record<string, EngineDdl> = {
  sqlite: {
    catalog: sqliteCatalog,
    checks: sqliteChecks,
    columns: sqliteColumns,
    indexes: sqliteIndexes,
    rows: sqliteRows,
    types: sqliteTypes,
  },
  postgres: {
    catalog: postgresCatalog,
    checks: postgresChecks,
    columns: postgresColumns,
    indexes: postgresIndexes,
    rows: postgresRows,
    types: postgresTypes,
  },
  mysql: MYSQL,
  mariadb: MYSQL, // MariaDB's differences are the few its files ask the server about
  mssql: {
    catalog: mssqlCatalog,
    checks: mssqlChecks,
    columns: mssqlColumns,
    indexes: mssqlIndexes,
    rows: mssqlRows,
    types: mssqlTypes,
  },
};

/** The statements of the engine a Sequelize dialect names. */
export function ddlOf(dialect: string): EngineDdl {
  const engine = ENGINES[dialect];
  if (!engine) throw new Error(`no schema statements for the ${dialect} dialect`);
  return engine;
}
