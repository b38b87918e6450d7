import type { QueryInterface } from 'sequelize';

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
}

export async function run(queryInterface: QueryInterface, sql: string): Promise<void> {
  await queryInterface.sequelize.query(sql);
}
