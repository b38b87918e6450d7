import type { QueryInterface } from 'sequelize';
import { select } from '../select';

// What each engine's catalog says of a table beyond what Sequelize's describeTable and showIndex do: its
// columns' collations and its foreign keys with their delete rule (table-schema.ts puts the shape together).
// One object per engine (<engine>-catalog.ts).

/** A foreign key as the catalog shows it: its column, the table it references, its delete rule. */
export interface ShownForeignKey {
  column: unknown;
  target: unknown;
  rule: unknown;
}

export interface CatalogDdl {
  /** Column name → collation, where the engine keeps one per column (none on SQLite: BINARY unless stated). */
  collations(queryInterface: QueryInterface, table: string): Promise<Map<string, string | null>>;
  /** The table's foreign keys. */
  foreignKeys(queryInterface: QueryInterface, table: string): Promise<ShownForeignKey[]>;
}

/** The rows of a catalog query as column name → collation. */
function collationMap(rows: readonly Record<string, unknown>[]): Map<string, string | null> {
  return new Map(rows.map((row) => [String(row.name), row.collation == null ? null : String(row.collation)]));
}

/**
 * A catalog read by two queries, each given the table as `:table`: one row per column (`name`, `collation`) and
 * one per foreign key (`column`, `target`, `rule`).
 */
export function catalogQueries(queries: { collations: string; foreignKeys: string }): CatalogDdl {
  return {
    collations: async (queryInterface, table) =>
      collationMap(await select(queryInterface, queries.collations, { table })),
    foreignKeys: async (queryInterface, table) =>
      (await select(queryInterface, queries.foreignKeys, { table })) as unknown as ShownForeignKey[],
  };
}
