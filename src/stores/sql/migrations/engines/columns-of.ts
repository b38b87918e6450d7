import type { ColumnDdl } from './column-ddl';
import { mssqlColumns } from './mssql-columns';
import { mysqlColumns } from './mysql-columns';
import { postgresColumns } from './postgres-columns';
import { sqliteColumns } from './sqlite-columns';

const COLUMNS: Record<string, ColumnDdl> = {
  sqlite: sqliteColumns,
  postgres: postgresColumns,
  mysql: mysqlColumns,
  mariadb: mysqlColumns,
  mssql: mssqlColumns,
};

/** The column changes' statements of the engine a dialect names. */
export function columnsOf(dialect: string): ColumnDdl {
  const columns = COLUMNS[dialect];
  if (!columns) throw new Error(`no column statements for the ${dialect} dialect`);
  return columns;
}
