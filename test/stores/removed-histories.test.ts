import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import {
  createResourceTable,
  defineStore,
  removedMigrations,
  type RemovedHistory,
  type SqlMigration,
} from '../../src/modules/kit';
import { createDatabase } from '../../src/stores/create-database';
import { MIGRATIONS_TABLE } from '../../src/stores/sql/migrations/migration';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { testEngines } from '../support/engines';

// The histories of modules removed with `npm run remove:module` (each its migrations, then the drop of its
// table), as a fresh database replays them: a tracker's projects, tickets (→ projects, cascading), labels and
// the ticket-labels join (→ tickets, → labels), removed dependants first as remove:module requires. Replayed
// in that order, PostgreSQL refused the join's foreign key to a labels table not built yet and MariaDB
// answered errno 150; removedMigrations builds every table before those pointing at it and drops it after.

const logger = createLogger({ env: 'test', logLevel: 'silent' });

function history(
  table: string,
  references: Record<string, string>,
  onDelete: 'restrict' | 'cascade' = 'restrict',
): RemovedHistory {
  const create: SqlMigration = {
    name: `rh-${table}-0001-create`,
    up: (queryInterface) =>
      createResourceTable(queryInterface, table, (c) =>
        Object.assign(
          {},
          c.string('name', { optional: true }),
          ...Object.entries(references).map(([column, target]) => c.reference(column, target, { onDelete })),
        ),
      ),
    down: (queryInterface) => queryInterface.dropTable(table),
  };
  const removal: SqlMigration = {
    name: `rh-${table}-0002-remove-module`,
    transaction: false,
    up: (queryInterface) => queryInterface.dropTable(table),
    down: (queryInterface) => create.up(queryInterface),
  };
  return { table, references: Object.values(references), migrations: [create], removal };
}

const projects = history('rh_projects', {});
const tickets = history('rh_tickets', { project: 'rh_projects' }, 'cascade');
const labels = history('rh_labels', {});
const ticketLabels = history('rh_ticket_labels', { ticket: 'rh_tickets', label: 'rh_labels' }, 'cascade');
/** In the order remove:module allowed: each module after those pointing at it. */
const removed = [ticketLabels, labels, tickets, projects];

describe('removedMigrations', () => {
  it('builds each table before the tables pointing at it and drops it after them, whatever the order of removal', () => {
    expect(removedMigrations(removed).map((migration) => migration.name)).toEqual([
      'rh-rh_projects-0001-create',
      'rh-rh_tickets-0001-create',
      'rh-rh_labels-0001-create',
      'rh-rh_ticket_labels-0001-create',
      'rh-rh_ticket_labels-0002-remove-module',
      'rh-rh_labels-0002-remove-module',
      'rh-rh_tickets-0002-remove-module',
      'rh-rh_projects-0002-remove-module',
    ]);
  });

  it('keeps the order given where no table points at another, and a reference to a table outside the histories is no constraint', () => {
    const outside = history('rh_outside', { owner: 'rh_live_table' });
    expect(removedMigrations([labels, outside]).map((migration) => migration.name)).toEqual([
      'rh-rh_labels-0001-create',
      'rh-rh_outside-0001-create',
      'rh-rh_outside-0002-remove-module',
      'rh-rh_labels-0002-remove-module',
    ]);
  });
});

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb')) {
  (target.skipReason ? describe.skip : describe)(`removed modules replayed on ${target.label}`, () => {
    it('a database without their history runs every migration, leaving none of their tables', async () => {
      const started = await target.start();
      const store = defineStore({
        name: 'removed-modules',
        migrations: removedMigrations(removed),
        relational: () => ({}),
        mongodb: () => ({}),
      });
      const database = createDatabase(
        loadConfig({ NODE_ENV: 'test', DATABASE_URL: started.url, DATABASE_TIMEOUT: '10s' }),
        logger,
        [store],
        { cleanupJob: false, connectAttempts: 3 },
      ) as SqlDatabase;
      await database.connect();
      const queryInterface = database.queryInterface();
      // The engine's database is shared by the suites: what an earlier run left is removed first, so this one starts from none of it.
      const forget = async () => {
        for (const { table } of removed) await queryInterface.dropTable(table).catch(() => undefined);
        if (await queryInterface.tableExists(MIGRATIONS_TABLE))
          await queryInterface.bulkDelete(MIGRATIONS_TABLE, {
            name: removedMigrations(removed).map((migration) => migration.name),
          });
      };
      try {
        await forget();
        await database.migrate();
        for (const { table } of removed) expect(await queryInterface.tableExists(table)).toBe(false);
        const status = await database.withMigrationConnection((migrator) => migrator.status());
        expect(status.pending).toEqual([]);
      } finally {
        await forget();
        await database.close();
        await started.stop();
      }
    }, 120_000);
  });
}
