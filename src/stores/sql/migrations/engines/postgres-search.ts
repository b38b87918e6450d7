import { createHash } from 'node:crypto';
import type { QueryInterface } from 'sequelize';
import { select } from '../select';
import type { SearchIndexDdl } from './index-ddl';

// PostgreSQL's substring index of a search shadow: a GIN index with pg_trgm's gin_trgm_ops, which serves the
// store's `LIKE '%…%'` for a term of three characters or more. pg_trgm is created if missing (trusted since
// PostgreSQL 13, so the database's owner may). Online (a table that may hold rows and take writes) it is built
// CONCURRENTLY, outside a transaction, an INVALID index a failed build left dropped first.

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

async function indexedShadows(queryInterface: QueryInterface, table: string): Promise<Set<string>> {
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

export const postgresSearch: SearchIndexDdl = {
  indexed: indexedShadows,
  async build(queryInterface, table, columns, online) {
    await ensureTrigram(queryInterface, table);
    const quote = (name: string) => queryInterface.quoteIdentifier(name);
    for (const column of columns) {
      const name = searchIndexName(table, column);
      if (online) {
        const invalid = await select(
          queryInterface,
          `SELECT 1 AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = :name AND NOT i.indisvalid`,
          { name },
        );
        if (invalid.length > 0)
          await queryInterface.sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${quote(name)}`);
      }
      await queryInterface.sequelize.query(
        `CREATE INDEX${online ? ' CONCURRENTLY' : ''} IF NOT EXISTS ${quote(name)} ON ${quote(table)} USING gin (${quote(column)} gin_trgm_ops)`,
      );
    }
  },
  async remove(queryInterface, table, columns) {
    for (const column of columns)
      await queryInterface.sequelize.query(
        `DROP INDEX IF EXISTS ${queryInterface.quoteIdentifier(searchIndexName(table, column))}`,
      );
  },
};
