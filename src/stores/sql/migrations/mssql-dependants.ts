import type { QueryInterface } from 'sequelize';
import { select } from './select';

// Everything on SQL Server that depends on a column, read from the catalog in one place, and the one way a
// schema change gets past it. SQL Server refuses to ALTER or DROP a column while anything uses it (Msg 5074,
// 4922): a foreign key, an index, a computed column over it (the unique keys' `<column>_bytes`), a DEFAULT
// constraint (system-named `DF__…` when created inline) or a CHECK constraint (a field's rules). Each change
// (rename, drop, required/optional, default) sets aside what blocks it, makes the change, and makes again
// what still applies, renamed with the column: no operation lists dependants of its own.
//
// Computed columns and CHECK constraints are found through sys.sql_expression_dependencies (their column
// references are schema-bound and recorded there), so a constraint added by any migration, under any name,
// is covered; a column-level CHECK also through its parent_column_id. What is made again is made as it was:
// an index's DESC keys, INCLUDE columns, filter and options (FILLFACTOR, PAD_INDEX, IGNORE_DUP_KEY, row and
// page locks); a foreign key's ON DELETE and ON UPDATE.

export interface ForeignKeyDependant {
  name: string;
  column: string;
  table: string;
  referenced: string;
  /** sys.foreign_keys' delete_referential_action_desc: NO_ACTION, CASCADE, SET_NULL, SET_DEFAULT. */
  onDelete: string;
  /** Its update_referential_action_desc, alike. */
  onUpdate: string;
}

export interface IndexDependant {
  name: string;
  /** The key columns, in order. */
  columns: string[];
  /** Whether each key column is in descending order. */
  descending: boolean[];
  /** The INCLUDE columns. */
  included: string[];
  unique: boolean;
  /** The filter of a filtered index (`([name] IS NOT NULL)`), or null. */
  filter: string | null;
  /** Its options where they differ from CREATE INDEX's defaults (`FILLFACTOR = 80`, `IGNORE_DUP_KEY = ON`, …). */
  options: string[];
}

export interface ExpressionDependant {
  name: string;
  definition: string;
}

export interface ComputedDependant extends ExpressionDependant {
  persisted: boolean;
}

export interface DefaultDependant extends ExpressionDependant {
  column: string;
}

export interface ColumnDependants {
  foreignKeys: ForeignKeyDependant[];
  computed: ComputedDependant[];
  checks: ExpressionDependant[];
  defaults: DefaultDependant[];
  /** The indexes over the columns or over a computed column that depends on them. */
  indexes: IndexDependant[];
}

/** What each change must set aside: sp_rename carries foreign keys and plain indexes with the column. */
export type ColumnChange = 'alter' | 'drop' | 'rename';

const COLUMN_IDS = `SELECT column_id FROM sys.columns WHERE object_id = OBJECT_ID(:table) AND name IN (:columns)`;
const EXPRESSION_USES = (referencing: string, minor: string) =>
  `EXISTS (SELECT 1 FROM sys.sql_expression_dependencies d WHERE d.referencing_id = ${referencing}${minor} AND d.referenced_id = OBJECT_ID(:table) AND d.referenced_minor_id IN (${COLUMN_IDS}))`;

export const NO_DEPENDANTS: ColumnDependants = { foreignKeys: [], computed: [], checks: [], defaults: [], indexes: [] };

/** The catalog's rows (one per index column) as indexes: key columns in order with their direction, then INCLUDE. */
function indexesOf(rows: readonly Record<string, unknown>[]): IndexDependant[] {
  const indexes: IndexDependant[] = [];
  for (const row of rows) {
    const name = String(row.name);
    let index = indexes.find((known) => known.name === name);
    if (!index) {
      const off = (value: unknown) => value === false || value === 0;
      const options = [
        ...(Number(row.fillFactor ?? 0) > 0 ? [`FILLFACTOR = ${Number(row.fillFactor)}`] : []),
        ...(row.padded ? ['PAD_INDEX = ON'] : []),
        ...(row.ignoreDupKey ? ['IGNORE_DUP_KEY = ON'] : []),
        ...(off(row.rowLocks) ? ['ALLOW_ROW_LOCKS = OFF'] : []),
        ...(off(row.pageLocks) ? ['ALLOW_PAGE_LOCKS = OFF'] : []),
      ];
      const filter = row.filter == null ? null : String(row.filter);
      indexes.push(
        (index = { name, columns: [], descending: [], included: [], unique: Boolean(row.unique), filter, options }),
      );
    }
    if (row.included) index.included.push(String(row.column));
    else {
      index.columns.push(String(row.column));
      index.descending.push(Boolean(row.descending));
    }
  }
  return indexes;
}

/** The dependants of these columns of `table`, as the catalog has them. */
export async function columnDependants(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<ColumnDependants> {
  if (columns.length === 0) return NO_DEPENDANTS;
  const on = { table, columns: [...columns] };
  const computed = (
    await select(
      queryInterface,
      `SELECT cc.name AS [name], cc.definition AS [definition], cc.is_persisted AS [persisted] FROM sys.computed_columns cc WHERE cc.object_id = OBJECT_ID(:table) AND ${EXPRESSION_USES('cc.object_id', ' AND d.referencing_minor_id = cc.column_id')} ORDER BY cc.column_id`,
      on,
    )
  ).map((row) => ({ name: String(row.name), definition: String(row.definition), persisted: Boolean(row.persisted) }));
  const checks = (
    await select(
      queryInterface,
      `SELECT ck.name AS [name], ck.definition AS [definition] FROM sys.check_constraints ck WHERE ck.parent_object_id = OBJECT_ID(:table) AND (ck.parent_column_id IN (${COLUMN_IDS}) OR ${EXPRESSION_USES('ck.object_id', '')}) ORDER BY ck.name`,
      on,
    )
  ).map((row) => ({ name: String(row.name), definition: String(row.definition) }));
  const defaults = (
    await select(
      queryInterface,
      `SELECT dc.name AS [name], dc.definition AS [definition], c.name AS [column] FROM sys.default_constraints dc JOIN sys.columns c ON c.object_id = dc.parent_object_id AND c.column_id = dc.parent_column_id WHERE dc.parent_object_id = OBJECT_ID(:table) AND c.name IN (:columns) ORDER BY c.column_id`,
      on,
    )
  ).map((row) => ({ name: String(row.name), definition: String(row.definition), column: String(row.column) }));
  const foreignKeys = (
    await select(
      queryInterface,
      `SELECT fk.name AS [name], c.name AS [column], t.name AS [table], rc.name AS [referenced], fk.delete_referential_action_desc AS [onDelete], fk.update_referential_action_desc AS [onUpdate] FROM sys.foreign_keys fk JOIN sys.foreign_key_columns fkc ON fkc.constraint_object_id = fk.object_id JOIN sys.columns c ON c.object_id = fkc.parent_object_id AND c.column_id = fkc.parent_column_id JOIN sys.tables t ON t.object_id = fkc.referenced_object_id JOIN sys.columns rc ON rc.object_id = fkc.referenced_object_id AND rc.column_id = fkc.referenced_column_id WHERE fk.parent_object_id = OBJECT_ID(:table) AND c.name IN (:columns) ORDER BY fk.name`,
      on,
    )
  ).map((row) => ({
    name: String(row.name),
    column: String(row.column),
    table: String(row.table),
    referenced: String(row.referenced),
    onDelete: String(row.onDelete),
    onUpdate: String(row.onUpdate ?? 'NO_ACTION'),
  }));
  const indexed = indexesOf(
    await select(
      queryInterface,
      `SELECT i.name AS [name], i.is_unique AS [unique], i.filter_definition AS [filter], i.fill_factor AS [fillFactor], i.ignore_dup_key AS [ignoreDupKey], i.is_padded AS [padded], i.allow_row_locks AS [rowLocks], i.allow_page_locks AS [pageLocks], c.name AS [column], ic.is_included_column AS [included], ic.is_descending_key AS [descending] FROM sys.indexes i JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id WHERE i.object_id = OBJECT_ID(:table) AND i.is_primary_key = 0 AND i.is_unique_constraint = 0 AND i.index_id IN (SELECT x.index_id FROM sys.index_columns x JOIN sys.columns xc ON xc.object_id = x.object_id AND xc.column_id = x.column_id WHERE x.object_id = i.object_id AND xc.name IN (:indexedColumns)) ORDER BY i.name, ic.is_included_column, ic.key_ordinal, ic.index_column_id`,
      { ...on, indexedColumns: [...columns, ...computed.map((column) => column.name)] },
    ),
  );
  return { foreignKeys, computed, checks, defaults, indexes: indexed };
}

/**
 * The part of the dependants a change sets aside: all of them, except, for a rename, what sp_rename carries
 * with the column (foreign keys, indexes over no computed column). Defaults are set aside then too, so the
 * kit's `DF_<table>_<column>` takes the new name.
 */
export function blocking(dependants: ColumnDependants, change: ColumnChange): ColumnDependants {
  if (change !== 'rename') return dependants;
  const computed = new Set(dependants.computed.map((column) => column.name));
  return {
    ...dependants,
    foreignKeys: [],
    indexes: dependants.indexes.filter((index) =>
      [...index.columns, ...index.included].some((column) => computed.has(column)),
    ),
  };
}

/** Column renames applied to a dependant: `[from]` → `[to]` in definitions, `<from>_…` names (`name_bytes`, `DF_tags_name`, `tags_name_check`) follow. */
export interface Renames {
  column(name: string): string;
  name(name: string): string;
  definition(text: string): string;
}

export function renamesOf(table: string, pairs: readonly (readonly [string, string])[]): Renames {
  const column = (name: string) => pairs.find(([from]) => from === name)?.[1] ?? name;
  const name = (given: string) => {
    for (const [from, to] of pairs) {
      if (given.startsWith(`${from}_`)) return `${to}${given.slice(from.length)}`;
      for (const prefix of [`DF_${table}_`, `${table}_`])
        if (given === `${prefix}${from}` || given.startsWith(`${prefix}${from}_`))
          return `${prefix}${to}${given.slice(prefix.length + from.length)}`;
    }
    return given;
  };
  const definition = (text: string) =>
    pairs.reduce((result, [from, to]) => result.split(`[${from}]`).join(`[${to}]`), text);
  return { column, name, definition };
}

const NO_RENAMES = renamesOf('', []);

async function run(queryInterface: QueryInterface, sql: string): Promise<void> {
  await queryInterface.sequelize.query(sql);
}

/** Drops the dependants, those that use others first (foreign keys and constraints, indexes, then computed columns). */
export async function dropDependants(
  queryInterface: QueryInterface,
  table: string,
  dependants: ColumnDependants,
): Promise<void> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  for (const constraint of [...dependants.foreignKeys, ...dependants.checks, ...dependants.defaults])
    await run(queryInterface, `ALTER TABLE ${quote(table)} DROP CONSTRAINT ${quote(constraint.name)}`);
  for (const index of dependants.indexes)
    await run(queryInterface, `DROP INDEX ${quote(index.name)} ON ${quote(table)}`);
  for (const column of dependants.computed)
    await run(queryInterface, `ALTER TABLE ${quote(table)} DROP COLUMN ${quote(column.name)}`);
}

/** Makes the dependants again, in the reverse order, renamed as `renames` says (a rename's new column names). */
export async function restoreDependants(
  queryInterface: QueryInterface,
  table: string,
  dependants: ColumnDependants,
  renames: Renames = NO_RENAMES,
  indexName: (index: IndexDependant, columns: string[]) => string = (index) => renames.name(index.name),
): Promise<void> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  for (const column of dependants.computed)
    await run(
      queryInterface,
      `ALTER TABLE ${quote(table)} ADD ${quote(renames.name(column.name))} AS ${renames.definition(column.definition)}${column.persisted ? ' PERSISTED' : ''}`,
    );
  for (const index of dependants.indexes) {
    // A computed column (a length) takes its new name as a dependant does; a table column, the column's.
    const renamed = (column: string) =>
      dependants.computed.some((computed) => computed.name === column) ? renames.name(column) : renames.column(column);
    const columns = index.columns.map(renamed);
    const keys = columns.map((column, at) => `${quote(column)}${index.descending[at] ? ' DESC' : ''}`).join(', ');
    const included = index.included.length > 0 ? ` INCLUDE (${index.included.map(renamed).map(quote).join(', ')})` : '';
    const filter = index.filter ? ` WHERE ${renames.definition(index.filter)}` : '';
    const options = index.options.length > 0 ? ` WITH (${index.options.join(', ')})` : '';
    await run(
      queryInterface,
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${quote(indexName(index, columns))} ON ${quote(table)} (${keys})${included}${filter}${options}`,
    );
  }
  for (const fallback of dependants.defaults)
    await run(
      queryInterface,
      `ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(renames.name(fallback.name))} DEFAULT ${fallback.definition} FOR ${quote(renames.column(fallback.column))}`,
    );
  for (const check of dependants.checks)
    await run(
      queryInterface,
      `ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(renames.name(check.name))} CHECK ${renames.definition(check.definition)}`,
    );
  for (const key of dependants.foreignKeys) {
    const rule = (action: string) => action.replace(/_/g, ' ');
    const onUpdate = key.onUpdate === 'NO_ACTION' ? '' : ` ON UPDATE ${rule(key.onUpdate)}`;
    await run(
      queryInterface,
      `ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(key.name)} FOREIGN KEY (${quote(renames.column(key.column))}) REFERENCES ${quote(key.table)} (${quote(key.referenced)}) ON DELETE ${rule(key.onDelete)}${onUpdate}`,
    );
  }
}

/**
 * Changes a column with everything that blocks the change set aside: read, dropped, the change made, then
 * made again (a drop's dependants are not: they go with the column).
 */
export async function changeMssqlColumn(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
  change: Exclude<ColumnChange, 'rename'>,
  make: () => Promise<void>,
): Promise<ColumnDependants> {
  const dependants = blocking(await columnDependants(queryInterface, table, columns), change);
  await dropDependants(queryInterface, table, dependants);
  await make();
  if (change !== 'drop') await restoreDependants(queryInterface, table, dependants);
  return dependants;
}
