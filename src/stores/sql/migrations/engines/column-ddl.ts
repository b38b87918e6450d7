import type { ModelAttributeColumnOptions, QueryInterface } from 'sequelize';
import { indexesOf } from '../indexes-of';

// How each engine changes a column of a table that holds rows, keeping the rest of it as it is: one object per
// engine (sqlite-columns.ts, postgres-columns.ts, mysql-columns.ts, mssql-columns.ts) behind this interface,
// so the field changes (field-nullability.ts, field-changes.ts, field-rename-drop.ts) hold no engine branch.

export interface ColumnDdl {
  /** Whether the column takes null (its type, collation, default, keys and foreign key stay). */
  setNullability(queryInterface: QueryInterface, table: string, column: string, required: boolean): Promise<void>;
  /** The column's DEFAULT: `literal` (SQL, escaped) or none. */
  setDefault(queryInterface: QueryInterface, table: string, column: string, literal: string | null): Promise<void>;
  /** Renames the column in place (its type, collation, keys, foreign key and indexes stay; its own CHECK follows). */
  renameColumn(queryInterface: QueryInterface, table: string, from: string, to: string): Promise<void>;
  /** Renames an index of the table. */
  renameIndex(queryInterface: QueryInterface, table: string, from: string, to: string): Promise<void>;
  /**
   * Runs `rename` (the columns `pairs` renamed, with the kit's index names) with what the engine must set aside
   * around it (SQL Server: what sp_rename does not carry), made again under the new names (`indexName` names an
   * index made again, from its old shape and its new columns). Without it, `rename` runs alone.
   */
  aroundRename?(
    queryInterface: QueryInterface,
    table: string,
    pairs: readonly (readonly [string, string])[],
    rename: () => Promise<void>,
    indexName: (index: { name: string; columns: string[] }, columns: string[]) => string,
  ): Promise<void>;
  /** What follows a column's rename besides its indexes and CHECK (PostgreSQL: its foreign key's name), if anything. */
  afterRename?(queryInterface: QueryInterface, table: string, from: string, to: string): Promise<void>;
  /** Adds a required column without a default to an empty table, where ADD COLUMN cannot (SQLite). */
  addRequiredToEmpty?(
    queryInterface: QueryInterface,
    table: string,
    name: string,
    spec: ModelAttributeColumnOptions,
  ): Promise<void>;
  /** Drops the columns (a field and its shadows) with the indexes, unique keys and foreign keys on them. */
  dropColumns(
    queryInterface: QueryInterface,
    table: string,
    columns: readonly string[],
    described: Record<string, unknown>,
  ): Promise<void>;
}

/** The indexes over the columns dropped, then each column (`dropOne`: an engine's own way for one of them). */
export async function dropWithIndexes(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
  dropOne: (column: string) => Promise<void> = (column) => dropColumn(queryInterface, table, column),
): Promise<void> {
  for (const index of await indexesOf(queryInterface, table))
    if (index.columns.some((name) => columns.includes(name))) await queryInterface.removeIndex(table, index.name);
  for (const column of columns) await dropOne(column);
}

/** `ALTER TABLE … DROP COLUMN …`, as every engine writes it. */
export function dropColumn(queryInterface: QueryInterface, table: string, column: string): Promise<void> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  return run(queryInterface, `ALTER TABLE ${quote(table)} DROP COLUMN ${quote(column)}`);
}

export async function run(queryInterface: QueryInterface, sql: string): Promise<void> {
  await queryInterface.sequelize.query(sql);
}
