import type { QueryInterface } from 'sequelize';

// How each engine builds an index on a table that may hold rows and take writes, and what a unique key needs
// beside its columns: one object per engine (<engine>-indexes.ts) behind this interface.

export interface IndexDdl {
  /**
   * Builds the index `name` on `columns` without blocking writes where the engine can (PostgreSQL CONCURRENTLY,
   * MySQL/MariaDB INPLACE); `exists` tells whether one of that name is there already (a retry).
   */
  addOnline(
    queryInterface: QueryInterface,
    table: string,
    name: string,
    columns: readonly string[],
    exists: (name: string) => Promise<boolean>,
  ): Promise<void>;
  /** The columns a unique key over `columns` indexes beyond them (SQL Server: each string's byte length), if any. */
  uniqueKeyExtras?(queryInterface: QueryInterface, table: string, columns: readonly string[]): Promise<string[]>;
  /** Whether a unique key leaves out the rows where a column is null (a partial index), as NULLs never clash. */
  readonly partialUniqueKeys: boolean;
  /** The substring index that serves `?q=`, where the engine has one (PostgreSQL); elsewhere the store walks. */
  readonly search?: SearchIndexDdl;
}

/**
 * The two shapes of a search shadow's substring index: `per-owner` keys it by the record's owner too, so an
 * owner's search reads that owner's matches only; `table-wide` (what migrations written before meant) holds
 * every owner's rows together, so a term common in the table costs every small owner the big owners' matches.
 */
export type SearchIndexShape = 'per-owner' | 'table-wide';

export interface SearchIndexDdl {
  /** The shapes of the valid substring indexes that serve each search shadow of the table. */
  indexed(queryInterface: QueryInterface, table: string): Promise<Map<string, Set<SearchIndexShape>>>;
  /** Builds the index of each shadow in that shape (`online`: the table may hold rows and take writes). */
  build(
    queryInterface: QueryInterface,
    table: string,
    columns: readonly string[],
    shape: SearchIndexShape,
    online: boolean,
  ): Promise<void>;
  /** Drops the index of each shadow in that shape (`online`: without blocking writes where the engine can). */
  remove(
    queryInterface: QueryInterface,
    table: string,
    columns: readonly string[],
    shape: SearchIndexShape,
    online: boolean,
  ): Promise<void>;
}

/** A plain CREATE INDEX, unless one of that name is there (SQLite, SQL Server: a short lock). */
export async function addPlainly(
  queryInterface: QueryInterface,
  table: string,
  name: string,
  columns: readonly string[],
  exists: (name: string) => Promise<boolean>,
): Promise<void> {
  if (!(await exists(name))) await queryInterface.addIndex(table, [...columns], { name });
}
