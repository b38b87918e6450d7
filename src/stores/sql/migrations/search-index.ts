import type { QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';

// The substring indexes that serve `?q=` (docs/databases.md, "Lists at scale"), over a table's search shadows
// (`<column>_search`, shadows.ts):
//
//   - PostgreSQL: a GIN index with pg_trgm's gin_trgm_ops on each shadow (engines/postgres-search.ts), which
//     serves the store's `LIKE '%…%'` for a term of three characters or more (the extension is created if
//     missing: trusted on PostgreSQL ≥ 13, so the database's owner may; otherwise the migration stops saying
//     who must);
//   - MySQL/MariaDB, SQL Server: none (their full-text indexes match words, not substrings), and SQLite: none
//     yet (FTS5's trigram tokenizer would serve it; see docs/decisions/023-search-at-scale.md): the store
//     walks within LIST_SEARCH_SCAN_LIMIT instead, and these steps do nothing there.
//
// New tables get them in their first migration (createResourceTable, from the columns built with
// `search: true`); a populated table through `addSearchIndex` (PostgreSQL CONCURRENTLY: its migration says
// `transaction: false`). Start-up refuses a table lacking one (missingSearchIndex).

export { searchIndexName } from './engines/postgres-search';

/** The search shadows among `columns` that no substring index serves (none on engines that have no such index). */
export async function missingSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<string[]> {
  const search = ddlOf(queryInterface.sequelize.getDialect()).indexes.search;
  if (columns.length === 0 || !search) return [];
  const indexed = await search.indexed(queryInterface, table);
  return columns.filter((column) => !indexed.has(column));
}

/** Who is told of the substring indexes the migrations on a QueryInterface build, whatever the engine. */
const observers = new WeakMap<QueryInterface, (table: string, columns: readonly string[]) => void>();

/**
 * Tells `observer` of every substring index built through `queryInterface` (createResourceTable, addFieldColumns,
 * addSearchIndex), on every engine, the ones that build none included, until the returned function is called:
 * `npm run new:indexes` runs a module's migrations on a scratch SQLite database and learns from it which search
 * shadows they index.
 */
export function observeSearchIndexes(
  queryInterface: QueryInterface,
  observer: (table: string, columns: readonly string[]) => void,
): () => void {
  observers.set(queryInterface, observer);
  return () => observers.delete(queryInterface);
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
  online: boolean,
): Promise<void> {
  observers.get(queryInterface)?.(table, columns);
  const search = ddlOf(queryInterface.sequelize.getDialect()).indexes.search;
  if (search && columns.length > 0) await search.build(queryInterface, table, columns, online);
}

/** The search index of a new (empty) table: createResourceTable calls it with the shadows it built. */
export function createSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<void> {
  return buildSearchIndex(queryInterface, table, columns, false);
}

/** The search index of a table that may hold rows (`npm run new:field -- … --search`, `npm run new:indexes`): its migration says `transaction: false`. */
export function addSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<void> {
  return buildSearchIndex(queryInterface, table, columns, true);
}

/** Undoes addSearchIndex (a migration's down): the indexes of these shadows dropped. */
export async function removeSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<void> {
  await ddlOf(queryInterface.sequelize.getDialect()).indexes.search?.remove(queryInterface, table, columns);
}
