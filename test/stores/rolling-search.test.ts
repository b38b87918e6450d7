import { randomBytes } from 'node:crypto';
import {
  addSearchColumn,
  addSearchIndex,
  createResourceTable,
  defineResource,
  dropFieldColumn,
  field,
  type SqlMigration,
} from '../../src/modules/kit';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { createDatabase } from '../../src/stores/create-database';
import { newId } from '../../src/stores/ids';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { foldForSearch } from '../../src/stores/kit/shadows';
import { openRepairs, repairSearchShadows } from '../../src/stores/sql/migrations/search-repairs';
import { SearchRepairJob } from '../../src/stores/search-repair-job';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { testEngines, type StartedEngine } from '../support/engines';

// A rolling deploy that adds `?q=` to a field of a table holding rows: the previous build (no search) keeps
// inserting and changing notes while the new build starts on the same database and fills the shadow, and for
// a while after. The previous release writes no shadow, so rows it inserts have none and titles it changes
// keep the old folded text; the repair the migration opened (search-repairs.ts) puts both right: once the old
// build stops and a pass has run, every row is found by its current title. ROLLING_ROWS (default 10^5) rows are
// there before the deploy.

const ROWS = Number(process.env.ROLLING_ROWS ?? 100_000);
const logger = createLogger({ env: 'test', logLevel: 'silent' });
const engines = testEngines().filter((target) => ['postgres', 'mysql'].includes(target.engine));

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`a rolling deploy adding search on ${target.label}`, () => {
    let started: StartedEngine | undefined;
    beforeAll(async () => {
      started = await target.start();
    }, 240_000);
    afterAll(() => started?.stop());

    it(`finds every row by its current title after the previous build wrote during and after the fill of ${ROWS} rows`, async () => {
      const table = `rs_${randomBytes(3).toString('hex')}`;
      const create: SqlMigration = {
        name: `${table}-0001-create`,
        up: (qi) => createResourceTable(qi, table, (c) => c.string('title', { maxLength: 100 })),
        down: (qi) => qi.dropTable(table),
        downDestroys: [{ table }],
      };
      const search: SqlMigration = {
        name: `${table}-0002-search-title`,
        transaction: false,
        up: async (qi) => {
          await addSearchColumn(qi, table, 'title', { kind: 'string', maxLength: 100 });
          await addSearchIndex(qi, table, ['title_search']);
          await addSearchIndex(qi, table, ['title_search'], { searchIndex: 'per-owner' });
        },
        down: (qi) => dropFieldColumn(qi, table, 'title_search'),
      };
      const build = (searched: boolean, migrations: SqlMigration[]) => {
        const resource = defineResource({
          name: `${table}-${searched ? 'new' : 'old'}`,
          table,
          modelName: `Rs${searched ? 'New' : 'Old'}${table}`,
          fields: { title: field.string({ maxLength: 100 }) },
          search: searched ? ['title'] : [],
          migrations,
        });
        const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: started!.url, DATABASE_TIMEOUT: '10s' });
        const database = createDatabase(config, logger, [resourceStore(resource)], {
          cleanupJob: false,
          connectAttempts: 3,
        }) as SqlDatabase;
        return { database, store: () => database.store(resourceStore(resource)) };
      };

      const previous = build(false, [create]);
      const next = build(true, [create, search]);
      try {
        await previous.database.connect();
        await previous.database.migrate();
        const qi = previous.database.queryInterface();
        for (let start = 0; start < ROWS; start += 1000) {
          const now = new Date();
          const rows = Array.from({ length: Math.min(1000, ROWS - start) }, (_, index) => ({
            id: newId(),
            owner_id: 'writer',
            title: `Seeded ${start + index}`,
            created_at: now,
            updated_at: now,
          }));
          await qi.bulkInsert(table, rows);
        }
        const ids = (
          (await qi.sequelize.query(`SELECT id FROM ${qi.quoteIdentifier(table)}`))[0] as { id: string }[]
        ).map((row) => row.id);

        // The previous build's writes, until told to stop: inserts, and changes of seeded rows' titles.
        let writing = true;
        let writes = 0;
        const writer = (async () => {
          while (writing) {
            const record = await previous.store().create('writer', { title: `Inserted ${writes} Été` });
            ids.push(record.id);
            const changed = ids[Math.floor(Math.random() * ids.length)]!;
            await previous.store().update(changed, { ownerId: 'writer' }, { title: `Changed ${writes} Ñandú` });
            writes += 1;
          }
        })();

        await next.database.connect();
        await next.database.migrate();
        const writesAtFill = writes;
        await new Promise((resolve) => setTimeout(resolve, 1_500)); // the previous build still writing after the fill
        writing = false;
        await writer;
        expect(writesAtFill).toBeGreaterThan(0); // it did write while the shadow was being filled
        expect(writes).toBeGreaterThan(writesAtFill);

        const stale = async () => {
          const [rows] = await qi.sequelize.query(`SELECT title, title_search FROM ${qi.quoteIdentifier(table)}`);
          return (rows as { title: string; title_search: string | null }[]).filter(
            (row) => row.title_search !== foldForSearch(row.title),
          ).length;
        };
        expect(await stale()).toBeGreaterThan(0); // what the previous release left: no shadow, or the old one
        // One pass as the job runs it: it writes the stale shadows and keeps the repair open (a failed pass would
        // also answer "still open": the count is what tells).
        let refolded = 0;
        const pass = async () => {
          const result = await repairSearchShadows(next.database.queryInterface());
          refolded += result.refolded;
          return result;
        };
        expect(await new SearchRepairJob(pass, logger).passOnce()).toBe(true);
        expect(refolded).toBeGreaterThan(0);
        expect(await stale()).toBe(0);
        expect((await openRepairs(qi)).map((repair) => repair.table)).toContain(table);

        // Found by ?q= as the new build searches (one page: where no index serves the term, the walk takes every row): an inserted row, a changed one, by their current titles.
        const [[[inserted]], [[changed]]] = (await Promise.all([
          qi.sequelize.query(`SELECT id, title FROM ${qi.quoteIdentifier(table)} WHERE title LIKE 'Inserted%' LIMIT 1`),
          qi.sequelize.query(`SELECT id, title FROM ${qi.quoteIdentifier(table)} WHERE title LIKE 'Changed%' LIMIT 1`),
        ])) as unknown as [[[{ id: string; title: string }]], [[{ id: string; title: string }]]];
        for (const row of [inserted, changed]) {
          const page = await next
            .store()
            .list(
              { ownerId: 'writer' },
              { where: [], sort: [], limit: 5, offset: 0, search: row!.title, scanLimit: ids.length + 10 },
            );
          expect(page.items.map((item) => item.id)).toEqual([row!.id]);
        }

        // The window over, a last pass closes the repair.
        await repairSearchShadows(next.database.queryInterface(), new Date(Date.now() + 2 * 60 * 60_000));
        expect((await openRepairs(qi)).map((repair) => repair.table)).not.toContain(table);
      } finally {
        await previous.database.close();
        await next.database.close();
      }
    }, 300_000);
  });
}
