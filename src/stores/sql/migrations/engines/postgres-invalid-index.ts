import type { QueryInterface } from 'sequelize';
import { select } from '../select';

// PostgreSQL: what a failed CREATE INDEX CONCURRENTLY leaves behind (an INVALID index of the name), which IF NOT
// EXISTS would then take for the index: the list indexes and the search indexes both clear it before building.

/** Drops the index `name` if a failed CONCURRENTLY build left it INVALID, so IF NOT EXISTS builds it again. */
export async function dropInvalidIndex(queryInterface: QueryInterface, name: string): Promise<void> {
  const invalid = await select(
    queryInterface,
    `SELECT 1 AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = :name AND NOT i.indisvalid`,
    { name },
  );
  if (invalid.length > 0)
    await queryInterface.sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${queryInterface.quoteIdentifier(name)}`);
}
