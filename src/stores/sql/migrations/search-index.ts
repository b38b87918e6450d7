import { createHash } from 'node:crypto';
import type { QueryInterface } from 'sequelize';
import { select } from './table-schema';

// The substring indexes that serve `?q=` (docs/databases.md, "Lists at scale"), over a table's search shadows
// (`<column>_search`, shadows.ts):
//
//   - PostgreSQL: a GIN index with pg_trgm's gin_trgm_ops on each shadow, which serves the store's
//     `LIKE '%…%'` for a term of three characters or more (the extension is created if missing: trusted on
//     PostgreSQL ≥ 13, so the database's owner may; otherwise the migration stops saying who must);
//   - MySQL/MariaDB, SQL Server: none (their full-text indexes match words, not substrings), and SQLite: none
//     yet (FTS5's trigram tokenizer would serve it; see docs/decisions/023-search-at-scale.md): the store
//     walks within LIST_SEARCH_SCAN_LIMIT instead, and these steps do nothing there.
//
// New tables get them in their first migration (createResourceTable, from the columns built with
// `search: true`); a populated table through `addSearchIndex` (PostgreSQL CONCURRENTLY: its migration says
// `transaction: false`). Start-up refuses a table lacking one (missingSearchIndex).

type Rows = Record<string, unknown>[];

/** The name of the GIN index on a search shadow: `<table>_<column>_trgm`, shortened with a hash past 60 characters. Never change it. */
export function searchIndexName(table: string, column: string): string {
  const name = `${table}_${column}_trgm`;
  return name.length <= 60
    ? name
    : `${name.slice(0, 51)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** PostgreSQL: pg_trgm, created when missing; a role that may not is told who may. */
async function ensureTrigram(queryInterface: QueryInterface, table: string): Promise<void> {
  const { sequelize } = queryInterface;
  if (
    ((await select(queryInterface, `SELECT 1 AS present FROM pg_extension WHERE extname = 'pg_trgm'`)) as Rows).length >
    0
  )
    return;
  try {
    await sequelize.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  } catch (error) {
    throw new Error(
      `the search index of ${table} needs PostgreSQL's pg_trgm extension, and this role could not create it (${error instanceof Error ? error.message : String(error)}): ` +
        'run `CREATE EXTENSION pg_trgm;` in this database as its owner (trusted since PostgreSQL 13) or a superuser, then start again',
      { cause: error },
    );
  }
}

async function postgresIndexed(queryInterface: QueryInterface, table: string): Promise<Set<string>> {
  const rows = (await select(
    queryInterface,
    `SELECT a.attname AS "column" FROM pg_index i
       JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
       JOIN pg_opclass oc ON oc.oid = i.indclass[0]
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
     WHERE i.indrelid = to_regclass(quote_ident(:table)) AND i.indnatts = 1 AND i.indisvalid AND am.amname = 'gin' AND oc.opcname = 'gin_trgm_ops'`,
    { table },
  )) as Rows;
  return new Set(rows.map((row) => String(row.column)));
}

/** The search shadows among `columns` that no substring index serves (none on engines that have no such index). */
export async function missingSearchIndex(
  queryInterface: QueryInterface,
  table: string,
  columns: readonly string[],
): Promise<string[]> {
  const dialect = queryInterface.sequelize.getDialect();
  if (columns.length === 0 || dialect !== 'postgres') return [];
  const indexed = await postgresIndexed(queryInterface, table);
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
  if (queryInterface.sequelize.getDialect() !== 'postgres' || columns.length === 0) return;
  await ensureTrigram(queryInterface, table);
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  for (const column of columns) {
    const name = searchIndexName(table, column);
    const concurrently = online ? ' CONCURRENTLY' : '';
    if (online) {
      const invalid = await select(
        queryInterface,
        `SELECT 1 AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = :name AND NOT i.indisvalid`,
        { name },
      );
      if (invalid.length > 0) await queryInterface.sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`);
    }
    await queryInterface.sequelize.query(
      `CREATE INDEX${concurrently} IF NOT EXISTS ${quote(name)} ON ${quote(table)} USING gin (${quote(column)} gin_trgm_ops)`,
    );
  }
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
  if (queryInterface.sequelize.getDialect() !== 'postgres') return;
  for (const column of columns)
    await queryInterface.sequelize.query(
      `DROP INDEX IF EXISTS ${queryInterface.quoteIdentifier(searchIndexName(table, column))}`,
    );
}
