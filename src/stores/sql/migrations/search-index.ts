import type { QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';
import type { SearchIndexShape } from './engines/index-ddl';

// The substring indexes that serve `?q=` (docs/databases.md, "Lists at scale"), over a table's search shadows
// (`<column>_search`, shadows.ts):
//
//   - PostgreSQL: GIN indexes with pg_trgm's gin_trgm_ops on each shadow, which serve the store's `LIKE '%…%'`
//     for a term of three letters or digits in a row (engines/postgres-search.ts), in two shapes: table-wide,
//     and per owner (owner_id first, through btree_gin), so an owner's search need not read other owners'
//     candidates. The planner takes the one that costs less: per owner for an owner with few rows among
//     many, table-wide for the owner of most of them, whose posting list the per-owner index would
//     intersect at every candidate (docs/decisions/033-search-per-owner.md has the figures);
//   - MySQL/MariaDB, SQL Server: none (their full-text indexes match words, not substrings), and SQLite: none
//     yet (FTS5's trigram tokenizer would serve it; see docs/decisions/023-search-at-scale.md): the store
//     walks within LIST_SEARCH_SCAN_LIMIT instead, and these steps do nothing there.
//
// A step builds the per-owner index only when asked (`searchPerOwner: true`, `searchIndex: 'per-owner'`), as
// the generator writes: migrations written before it existed keep meaning what they meant, so one run long ago
// and the same file run on a fresh database make the same indexes, and `npm run new:indexes` (which runs a
// module's migrations on a scratch database) learns which ones a deployed table lacks. Start-up refuses a
// table lacking either (missingSearchIndex).

export type { SearchIndexShape } from './engines/index-ddl';

/** The shapes every search shadow is indexed in. */
export const SEARCH_INDEX_SHAPES: readonly SearchIndexShape[] = ['table-wide', 'per-owner'];
export { searchIndexName } from './engines/postgres-search';

/** The substring indexes (shadow and shape) among `columns` that a table lacks (none on engines without one). */
export async function missingSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<{ column: string; shape: SearchIndexShape }[]> {
  const search = ddlOf(queryInterface.sequelize.getDialect()).indexes.search;
  if (columns.length === 0 || !search) return [];
  const indexed = await search.indexed(queryInterface, table);
  return SEARCH_INDEX_SHAPES.flatMap((shape) =>
    columns.filter((column) => !indexed.get(column)?.has(shape)).map((column) => ({ column, shape })),
  );
}

/**
 * A substring index step a migration took: built or dropped in one shape, or (a field's column dropped or
 * renamed) every shape of these shadows dropped, or moved to the `to` shadows.
 */
export type SearchIndexStep = { table: string; columns: readonly string[] } & (
  | { action: 'build' | 'drop'; shape: SearchIndexShape }
  | { action: 'drop-column' }
  | { action: 'rename-column'; to: readonly string[] }
);

/** Who is told of the substring index steps the migrations on a QueryInterface take, whatever the engine. */
const observers = new WeakMap<QueryInterface, (step: SearchIndexStep) => void>();

/**
 * Tells `observer` of every substring index built or dropped through `queryInterface` (createResourceTable,
 * addFieldColumns, addSearchIndex, removeSearchIndex), on every engine, the ones that build none included,
 * until the returned function is called: `npm run new:indexes` runs a module's migrations on a scratch SQLite
 * database and learns from it which search shadows they index, in which shape.
 */
export function observeSearchIndexes(
  queryInterface: QueryInterface,
  observer: (step: SearchIndexStep) => void,
): () => void {
  observers.set(queryInterface, observer);
  return () => observers.delete(queryInterface);
}

/**
 * Tells the observer that these shadow columns went (`to` undefined) or took the `to` names, and their indexes
 * with them.
 */
export function observeShadowColumns(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
  to?: readonly string[],
): void {
  const observer = observers.get(queryInterface);
  if (observer && columns.length > 0)
    observer(to ? { table, columns, action: 'rename-column', to } : { table, columns, action: 'drop-column' });
}

/** Which index a step builds or drops: `table-wide` unless said (see above). */
export interface SearchIndexOptions {
  searchIndex?: SearchIndexShape;
}

/**
 * The substring index of a table's search shadows (`columns`: all of them, as the declaration has them).
 * `online`: the table may hold rows and take writes (PostgreSQL builds CONCURRENTLY, outside a transaction,
 * an INVALID index a failed build left dropped first); otherwise a plain build on a new table.
 */
async function buildSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
  shape: SearchIndexShape,
  online: boolean,
): Promise<void> {
  observers.get(queryInterface)?.({ table, columns, shape, action: 'build' });
  const search = ddlOf(queryInterface.sequelize.getDialect()).indexes.search;
  if (search && columns.length > 0) await search.build(queryInterface, table, columns, shape, online);
}

/**
 * The search indexes of new columns: createResourceTable and addFieldColumns call it with the shadows they built;
 * table-wide, and per owner too when `perOwner` (see above).
 */
export async function createSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
  options: { perOwner?: boolean } = {},
): Promise<void> {
  await buildSearchIndex(queryInterface, table, columns, 'table-wide', false);
  if (options.perOwner) await buildSearchIndex(queryInterface, table, columns, 'per-owner', false);
}

/**
 * The search index of a table that may hold rows (`npm run new:field -- … --search`, `npm run new:indexes`),
 * built online: its migration says `transaction: false`.
 */
export function addSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
  options: SearchIndexOptions = {},
): Promise<void> {
  return buildSearchIndex(queryInterface, table, columns, options.searchIndex ?? 'table-wide', true);
}

/**
 * Drops the indexes of these shadows in that shape (a migration's down). `online`: PostgreSQL drops
 * CONCURRENTLY, so its migration says `transaction: false`.
 */
export async function removeSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
  options: SearchIndexOptions & { online?: boolean } = {},
): Promise<void> {
  const shape = options.searchIndex ?? 'table-wide';
  observers.get(queryInterface)?.({ table, columns, shape, action: 'drop' });
  const search = ddlOf(queryInterface.sequelize.getDialect()).indexes.search;
  await search?.remove(queryInterface, table, columns, shape, options.online === true);
}
