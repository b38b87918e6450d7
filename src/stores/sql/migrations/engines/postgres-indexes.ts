import type { IndexDdl } from './index-ddl';
import { dropInvalidIndex } from './postgres-invalid-index';
import { postgresSearch } from './postgres-search';

// PostgreSQL: CREATE INDEX CONCURRENTLY (outside a transaction: its migration says `transaction: false`), an
// INVALID index a failed build left dropped first; IF NOT EXISTS makes a retry a no-op. A partial unique index
// leaves the nulls out.

export const postgresIndexes: IndexDdl = {
  async addOnline(queryInterface, table, name, columns) {
    const quote = (identifier: string) => queryInterface.quoteIdentifier(identifier);
    await dropInvalidIndex(queryInterface, name);
    await queryInterface.sequelize.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${quote(name)} ON ${quote(table)} (${columns.map(quote).join(', ')})`,
    );
  },
  partialUniqueKeys: true,
  search: postgresSearch,
};
