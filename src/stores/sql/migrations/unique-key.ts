import type { QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';

// A unique key per owner, added by a migration: on a table that may already hold rows breaking it, the
// migration stops with a message an operator can act on, instead of the engine's bare "Validation error".

export class DuplicateRowsError extends Error {
  constructor(table: string, columns: readonly string[], example: Record<string, unknown>, count: number) {
    const values = columns.map((column) => `${column}=${JSON.stringify(example[column])}`).join(', ');
    super(
      `cannot add the unique key (${columns.join(', ')}) to table ${table}: ${count} rows share ${values}; make them differ (or delete some), then run the migrations again`,
    );
    this.name = 'DuplicateRowsError';
  }
}

/** The dialect's quoting (Sequelize keeps it on the query generator, which its types do not show). */
function quoting(queryInterface: QueryInterface): { table(name: string): string; identifier(name: string): string } {
  const generator = (
    queryInterface as unknown as {
      queryGenerator: { quoteTable(name: string): string; quoteIdentifier(name: string): string };
    }
  ).queryGenerator;
  return { table: (name) => generator.quoteTable(name), identifier: (name) => generator.quoteIdentifier(name) };
}

/** One group of rows that already share the key's values, if there is any (rows with an empty column never clash). */
export async function firstDuplicate(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<{ row: Record<string, unknown>; count: number } | undefined> {
  const quote = quoting(queryInterface);
  const quoted = columns.map((column) => quote.identifier(column));
  const notNull = quoted.map((column) => `${column} IS NOT NULL`).join(' AND ');
  const [rows] = await queryInterface.sequelize.query(
    `SELECT ${quoted.join(', ')}, COUNT(*) AS duplicates FROM ${quote.table(table)} WHERE ${notNull} GROUP BY ${quoted.join(', ')} HAVING COUNT(*) > 1`,
  );
  const row = (rows as Record<string, unknown>[])[0];
  return row ? { row, count: Number(row.duplicates) } : undefined;
}

/** The name addUniqueKey gives the key on these columns. */
export function uniqueKeyName(table: string, columns: readonly string[]): string {
  return `${table}_${columns.join('_')}_unique`;
}

/** An index's columns as addUniqueKey was given them: the leading owner_id and SQL Server's `_bytes` length columns left out. */
export function uniqueKeyColumns(columns: readonly string[]): string[] {
  return columns.filter((column, position) => !(position === 0 && column === 'owner_id') && !column.endsWith('_bytes'));
}

/** The key of a unique index addUniqueKey made (recognised by its name), or undefined for any other index. */
export function uniqueKeyOf(
  table: string,
  index: { name: string; unique: boolean; columns: readonly string[] },
): string[] | undefined {
  const key = uniqueKeyColumns(index.columns);
  return index.unique && index.name === uniqueKeyName(table, key) ? key : undefined;
}

/**
 * Adds a unique index on (owner_id, …columns), named `<table>_<columns>_unique`. Rows with an empty (null)
 * column never clash, on every engine: PostgreSQL, SQLite and SQL Server index only the rows where all are
 * set (SQL Server would otherwise count nulls as equal); MySQL/MariaDB allow repeated nulls already. On SQL
 * Server, which ignores trailing spaces in comparisons, each string column's byte length joins the key, as a
 * persisted computed column, so 'a' and 'a ' do not clash there either.
 */
export async function addUniqueKey(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<void> {
  const name = uniqueKeyName(table, columns);
  const indexes = (await queryInterface.showIndex(table)) as { name: string }[];
  if (indexes.some((index) => index.name === name)) return; // a retry after a half-applied run (MySQL DDL is not transactional)
  const key = ['owner_id', ...columns];
  const duplicate = await firstDuplicate(queryInterface, table, key);
  if (duplicate) throw new DuplicateRowsError(table, key, duplicate.row, duplicate.count);
  const { indexes: statements } = ddlOf(queryInterface.sequelize.getDialect());
  const indexed = [...key, ...((await statements.uniqueKeyExtras?.(queryInterface, table, columns)) ?? [])];
  const partial = statements.partialUniqueKeys
    ? { where: Object.fromEntries(columns.map((column) => [column, { [notNullOperator(queryInterface)]: null }])) }
    : {};
  await queryInterface.addIndex(table, indexed, { name, unique: true, ...partial });
}

/** Sequelize's Op.ne, from the connection (not imported: the kit loads no Sequelize on MongoDB). */
function notNullOperator(queryInterface: QueryInterface): symbol {
  return (queryInterface.sequelize.constructor as unknown as { Op: { ne: symbol } }).Op.ne;
}

/** Drops what addUniqueKey added (a migration's down). */
export async function removeUniqueKey(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<void> {
  await queryInterface.removeIndex(table, uniqueKeyName(table, columns));
}
