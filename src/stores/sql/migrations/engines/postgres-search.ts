import { createHash } from 'node:crypto';
import type { QueryInterface } from 'sequelize';
import { select } from '../select';
import { dropInvalidIndex } from './postgres-invalid-index';
import type { SearchIndexDdl, SearchIndexShape } from './index-ddl';

// PostgreSQL's substring indexes of a search shadow: GIN indexes with pg_trgm's gin_trgm_ops, which serve the
// store's `LIKE '%…%'` for a term of three characters or more, in two shapes (search-index.ts says why both):
// table-wide, and per owner, led by owner_id through btree_gin, so the owner's posting list and the term's
// trigrams are intersected inside the index. Both extensions are created if missing (trusted since PostgreSQL 13,
// so the database's owner may). Online (a table that may hold rows and take writes) an index is built
// CONCURRENTLY, outside a transaction, an INVALID index a failed build left dropped first.

const SUFFIXES: Record<SearchIndexShape, string> = { 'table-wide': 'trgm', 'per-owner': 'owner_trgm' };

/**
 * The name of the GIN index on a search shadow: `<table>_<column>_trgm` table-wide, `<table>_<column>_owner_trgm`
 * per owner, shortened with a hash past 60 characters. Never change them.
 */
export function searchIndexName(table: string, column: string, shape: SearchIndexShape = 'table-wide'): string {
  const name = `${table}_${column}_${SUFFIXES[shape]}`;
  return name.length <= 60
    ? name
    : `${name.slice(0, 51)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** An extension the index needs, created when missing; a role that may not is told who may. */
async function ensureExtension(queryInterface: QueryInterface, table: string, extension: string): Promise<void> {
  const present = `SELECT 1 AS present FROM pg_extension WHERE extname = :extension`;
  if ((await select(queryInterface, present, { extension })).length > 0) return;
  try {
    await queryInterface.sequelize.query(`CREATE EXTENSION IF NOT EXISTS ${extension}`);
  } catch (error) {
    throw new Error(
      `the search index of ${table} needs PostgreSQL's ${extension} extension, and this role could not create it (${error instanceof Error ? error.message : String(error)}): ` +
        `run \`CREATE EXTENSION ${extension};\` in this database as its owner (trusted since PostgreSQL 13) or a superuser, then start again`,
      { cause: error },
    );
  }
}

/**
 * Each shadow's valid, whole-table GIN trigram indexes by shape, found by their columns whatever their names:
 * the shadow alone (table-wide), or owner_id then the shadow (per owner).
 */
async function indexedShadows(
  queryInterface: QueryInterface,
  table: string,
): Promise<Map<string, Set<SearchIndexShape>>> {
  const rows = await select(
    queryInterface,
    `SELECT a.attname AS "column", i.indnatts AS width FROM pg_index i
       JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
       JOIN pg_opclass oc ON oc.oid = i.indclass[i.indnatts - 1]
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[i.indnatts - 1]
       LEFT JOIN pg_attribute lead ON lead.attrelid = i.indrelid AND lead.attnum = i.indkey[0]
     WHERE i.indrelid = to_regclass(quote_ident(:table)) AND i.indisvalid AND i.indpred IS NULL
       AND am.amname = 'gin' AND oc.opcname = 'gin_trgm_ops'
       AND (i.indnatts = 1 OR (i.indnatts = 2 AND lead.attname = 'owner_id'))`,
    { table },
  );
  const shapes = new Map<string, Set<SearchIndexShape>>();
  for (const row of rows) {
    const column = String(row.column);
    const known = shapes.get(column) ?? new Set<SearchIndexShape>();
    known.add(Number(row.width) === 1 ? 'table-wide' : 'per-owner');
    shapes.set(column, known);
  }
  return shapes;
}

export const postgresSearch: SearchIndexDdl = {
  indexed: indexedShadows,
  async build(queryInterface, table, columns, shape, online) {
    await ensureExtension(queryInterface, table, 'pg_trgm');
    if (shape === 'per-owner') await ensureExtension(queryInterface, table, 'btree_gin');
    const quote = (name: string) => queryInterface.quoteIdentifier(name);
    const lead = shape === 'per-owner' ? `${quote('owner_id')}, ` : '';
    for (const column of columns) {
      const name = searchIndexName(table, column, shape);
      if (online) await dropInvalidIndex(queryInterface, name);
      await queryInterface.sequelize.query(
        `CREATE INDEX${online ? ' CONCURRENTLY' : ''} IF NOT EXISTS ${quote(name)} ON ${quote(table)} USING gin (${lead}${quote(column)} gin_trgm_ops)`,
      );
    }
  },
  async remove(queryInterface, table, columns, shape, online) {
    for (const column of columns)
      await queryInterface.sequelize.query(
        `DROP INDEX${online ? ' CONCURRENTLY' : ''} IF EXISTS ${queryInterface.quoteIdentifier(searchIndexName(table, column, shape))}`,
      );
  },
};
