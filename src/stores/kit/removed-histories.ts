import type { SqlMigration } from '../sql/migrations/migration';

/**
 * The schema history of a module removed with `npm run remove:module`: its migrations as they ran, then the
 * one that dropped its table. Kept so every database's `schema_migrations` matches the code.
 */
export interface RemovedHistory {
  /** The module's table. */
  readonly table: string;
  /** The tables its migrations point foreign keys at (as remove:module read them), its own left out. */
  readonly references: readonly string[];
  /** Its migrations in their order, the table's creation first. */
  readonly migrations: readonly SqlMigration[];
  /** The last one: drops the table. */
  readonly removal: SqlMigration;
}

/**
 * The removed modules' migrations in an order a fresh database can run: every history's building migrations
 * first, a table before the tables that point at it; then the drops, a table after those that point at it.
 * In the order the modules were removed (dependants first, as remove:module requires), a fresh PostgreSQL
 * or MariaDB would create a foreign key to a table not built yet, and drop a table still pointed at. A
 * database that ran some of them runs the rest in this order too, which keeps the same two rules.
 */
export function removedMigrations(histories: readonly RemovedHistory[]): SqlMigration[] {
  const byTable = new Map(histories.map((history) => [history.table, history]));
  const ordered: RemovedHistory[] = [];
  const visiting = new Set<RemovedHistory>();
  const visit = (history: RemovedHistory): void => {
    // A cycle (two tables made to point at each other over time) keeps the order given.
    if (ordered.includes(history) || visiting.has(history)) return;
    visiting.add(history);
    for (const table of history.references) {
      const referenced = byTable.get(table);
      if (referenced && referenced !== history) visit(referenced);
    }
    visiting.delete(history);
    ordered.push(history);
  };
  for (const history of histories) visit(history);
  return [...ordered.flatMap((history) => history.migrations), ...ordered.reverse().map((history) => history.removal)];
}
