import type { CheckDdl } from './check-ddl';
import { mssqlChecks } from './mssql-checks';
import { mysqlChecks } from './mysql-checks';
import { postgresChecks } from './postgres-checks';
import { sqliteChecks } from './sqlite-checks';

const CHECKS: Record<string, CheckDdl> = {
  sqlite: sqliteChecks,
  postgres: postgresChecks,
  mysql: mysqlChecks,
  mariadb: mysqlChecks,
  mssql: mssqlChecks,
};

/** The CHECK constraints' statements of the engine a dialect names. */
export function checksOf(dialect: string): CheckDdl {
  const checks = CHECKS[dialect];
  if (!checks) throw new Error(`no CHECK constraint statements for the ${dialect} dialect`);
  return checks;
}
