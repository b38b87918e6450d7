import { randomBytes } from 'node:crypto';
import { type Sequelize } from 'sequelize';
import { addSearchColumn, createResourceTable, type SqlMigration } from '../../src/modules/kit';
import { newId } from '../../src/stores/ids';
import { FILL_BATCH, FILL_BATCH_BYTES, fillInBatches } from '../../src/stores/sql/migrations/batched-fill';
import type { Migrator } from '../../src/stores/sql/migrator';
import { testEngines, type StartedEngine } from '../support/engines';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { createDatabase } from '../../src/stores/create-database';
import { defineStore } from '../../src/stores/kit/definition';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';

// A searched field added to a table that holds rows fills its shadow in batches: one statement writes a
// batch (not one UPDATE per row), each batch commits by itself (the migration runs outside a transaction),
// and a fill cut short goes on where it stopped when the migration runs again. Real engines.

const ROWS = FILL_BATCH * 2 + 500;
const logger = createLogger({ env: 'test', logLevel: 'silent' });
const engines = testEngines().filter((target) => target.engine !== 'mongodb');

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`the search shadow's fill on ${target.label}`, () => {
    let started: StartedEngine | undefined;
    beforeAll(async () => {
      started = await target.start();
    }, 240_000);
    afterAll(() => started?.stop());

    async function populated(database: SqlDatabase, table: string): Promise<void> {
      const queryInterface = database.queryInterface();
      await createResourceTable(queryInterface, table, (c) => c.string('title', { maxLength: 100, optional: true }));
      const rows = Array.from({ length: ROWS }, (_, index) => ({
        id: newId(),
        owner_id: 'filler',
        title: index === 7 ? 'Une École' : `Row ${index}`,
        created_at: new Date(),
        updated_at: new Date(),
      }));
      rows.push({
        id: newId(),
        owner_id: 'filler',
        title: null as never,
        created_at: new Date(),
        updated_at: new Date(),
      });
      for (let start = 0; start < rows.length; start += 500)
        await queryInterface.bulkInsert(table, rows.slice(start, start + 500));
    }

    const open = (migrations: SqlMigration[]) => {
      const store = defineStore<object>({
        name: `fill-${randomBytes(4).toString('hex')}`,
        migrations,
        relational: () => ({}),
        mongodb: () => ({}),
      });
      return createDatabase(
        loadConfig({ NODE_ENV: 'test', DATABASE_URL: started!.url, DATABASE_TIMEOUT: '5s' }),
        logger,
        [store],
        { cleanupJob: false, connectAttempts: 3 },
      ) as SqlDatabase;
    };

    const searchMigration = (table: string): SqlMigration => ({
      name: `${table}-0002-search-title`,
      transaction: false,
      up: (qi) => addSearchColumn(qi, table, 'title', { kind: 'string', maxLength: 100 }),
      down: (qi) => qi.removeColumn(table, 'title_search'),
    });

    it('writes a batch per statement, and a fill stopped half-way keeps the batches written and finishes when run again', async () => {
      const table = `bf_${randomBytes(3).toString('hex')}`;
      const migration = searchMigration(table);
      const database = open([
        { name: `${table}-0001-create`, up: async () => undefined, down: async () => undefined },
        migration,
      ]);
      await database.connect();
      try {
        await populated(database, table);
        let updates = 0;
        let failAt: number | undefined = 2;
        // Every migration statement goes through the migration connection's sequelize: counted, the second batch's write failed once.
        const original = database.withMigrationConnection.bind(database);
        jest
          .spyOn(database, 'withMigrationConnection')
          .mockImplementation(<T>(work: (migrator: Migrator) => Promise<T>) =>
            original((migrator) => {
              const sequelize = (migrator as unknown as { sequelize: Sequelize }).sequelize;
              if (jest.isMockFunction(sequelize.query)) return work(migrator); // SQLite migrates on the service's own connection, counted already
              const query = sequelize.query.bind(sequelize);
              jest.spyOn(sequelize, 'query').mockImplementation(((sql: string, options?: unknown) => {
                if (typeof sql === 'string' && /^UPDATE /.test(sql)) {
                  updates += 1;
                  if (updates === failAt) return Promise.reject(new Error('the deploy was killed'));
                }
                return query(sql, options as never);
              }) as never);
              return work(migrator);
            }),
          );
        await expect(database.migrate()).rejects.toThrow('the deploy was killed');
        const filled = async () =>
          Number(
            (
              (await database.sequelize.query(
                `SELECT COUNT(*) AS n FROM ${database.queryInterface().quoteIdentifier(table)} WHERE title_search IS NOT NULL`,
                { type: 'SELECT' as never },
              )) as unknown as { n: unknown }[]
            )[0]!.n,
          );
        expect(await filled()).toBe(FILL_BATCH); // the first batch committed before the failure
        updates = 0;
        failAt = undefined;
        await database.migrate();
        expect(await filled()).toBe(ROWS);
        expect(updates).toBe(Math.ceil((ROWS - FILL_BATCH) / FILL_BATCH)); // the rest, one statement per batch
        const [school] = (await database.sequelize.query(
          `SELECT title_search FROM ${database.queryInterface().quoteIdentifier(table)} WHERE title = :title`,
          { type: 'SELECT' as never, replacements: { title: 'Une École' } },
        )) as unknown as { title_search: string }[];
        expect(school!.title_search).toBe('une ecole');
      } finally {
        await database.close();
      }
    }, 120_000);

    it('bounds a statement by bytes as well as rows: long texts go in several statements, each far below max_allowed_packet', async () => {
      const table = `bf_${randomBytes(3).toString('hex')}`;
      const database = open([]);
      await database.connect();
      try {
        const queryInterface = database.queryInterface();
        await createResourceTable(queryInterface, table, (c) => c.text('body', { optional: true }));
        await queryInterface.addColumn(table, 'body_search', { type: 'TEXT' as never, allowNull: true });
        const long = 'É'.repeat(20_000); // 40 KB in UTF-8, twice in a statement (the value and its fold)
        const now = new Date();
        await queryInterface.bulkInsert(
          table,
          Array.from({ length: 60 }, () => ({
            id: newId(),
            owner_id: 'o',
            body: long,
            created_at: now,
            updated_at: now,
          })),
        );
        const statements: number[] = [];
        const query = database.sequelize.query.bind(database.sequelize);
        jest.spyOn(database.sequelize, 'query').mockImplementation(((sql: string, options?: unknown) => {
          if (typeof sql === 'string' && /^UPDATE /.test(sql)) statements.push(Buffer.byteLength(sql));
          return query(sql, options as never);
        }) as never);
        const fill = {
          table,
          source: 'body',
          target: 'body_search',
          compute: (value: unknown) => String(value).toLowerCase(),
        };
        expect(await fillInBatches(queryInterface, fill)).toBe(60);
        expect(statements.length).toBeGreaterThan(2); // 60 rows, one read, several writes
        expect(Math.max(...statements)).toBeLessThan(FILL_BATCH_BYTES + 200_000);
        const [{ n }] = (await database.sequelize.query(
          `SELECT COUNT(*) AS n FROM ${queryInterface.quoteIdentifier(table)} WHERE body_search IS NOT NULL`,
          { type: 'SELECT' as never },
        )) as unknown as [{ n: unknown }];
        expect(Number(n)).toBe(60);
      } finally {
        jest.restoreAllMocks();
        await database.close();
      }
    }, 120_000);
  });
}
