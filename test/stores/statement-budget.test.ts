import { QueryTypes } from 'sequelize';
import { createLogger } from '../../src/logger';
import { StoreUnavailableError } from '../../src/stores/errors';
import { defineStore } from '../../src/stores/kit/definition';
import { SqlDatabase } from '../../src/stores/sql/sql-database';
import type { SqlEngine } from '../../src/stores/sql/connection-options';
import { testEngines, type StartedEngine } from '../support/engines';

// The statement budget on the real engines: a statement running past DATABASE_TIMEOUT is stopped by the
// database (PostgreSQL statement_timeout, MariaDB max_statement_time) or interrupted (SQLite), answered as
// the store's 503 error, and its connection is free again: the next statement on it answers.

const BUDGET_MS = 400;
const logger = createLogger({ env: 'test', logLevel: 'silent' });

/** A statement that would run for minutes (or for ever) unless the budget stops it. */
const SLOW: Record<'sqlite' | 'postgres' | 'mysql', string> = {
  // An unbounded recursive CTE: only an interrupt ends it.
  sqlite: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c',
  postgres: 'SELECT pg_sleep(120) AS n',
  // A join of the sequence engine's rows with themselves: ~10^12 rows (SLEEP would be interrupted silently, answering 1).
  mysql: 'SELECT COUNT(*) AS n FROM seq_1_to_1000000 a, seq_1_to_1000000 b WHERE a.seq + b.seq = 7',
};

interface Probe {
  select(sql: string): Promise<unknown>;
}

const probe = defineStore<Probe>({
  name: 'statement-budget-probe',
  migrations: [],
  relational: (context) => ({
    select: (sql) => context.run(() => context.sequelize.query(sql, { type: QueryTypes.SELECT })),
  }),
  mongodb: () => {
    throw new Error('SQL engines only');
  },
});

const engines = testEngines().filter((target) => ['sqlite', 'postgres', 'mysql'].includes(target.engine));

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`statement budget on ${target.label}`, () => {
    let started: StartedEngine;
    let database: SqlDatabase;
    beforeAll(async () => {
      started = await target.start();
      const url = target.engine === 'sqlite' ? 'sqlite::memory:' : started.url;
      database = new SqlDatabase(
        {
          url,
          engine: target.engine as SqlEngine,
          timeoutMs: BUDGET_MS,
          migrationTimeoutMs: 60_000,
          cleanupIntervalMs: 0,
          connectAttempts: 3,
          stores: [probe],
        },
        logger,
      );
      await database.connect();
    }, 240_000);
    afterAll(async () => {
      await database?.close();
      await started?.stop();
    });

    it("stops a statement past the budget with the store's 503 error, and frees its connection", async () => {
      const store = database.store(probe);
      await expect(store.select(SLOW[target.engine as keyof typeof SLOW])).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      // The guard answered at the deadline; the engine stopping the statement is what lets these run. On SQLite
      // (one connection) a statement still running would hold every later one.
      for (let i = 0; i < 3; i += 1) await expect(store.select('SELECT 1 AS n')).resolves.toEqual([{ n: 1 }]);
      if (target.engine === 'postgres') {
        const running = await database.sequelize.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(120)%'",
          { type: QueryTypes.SELECT },
        );
        expect(running).toEqual([{ n: 0 }]);
      }
      if (target.engine === 'mysql') {
        // The server ends it at max_statement_time, about when the guard answered: asked until it is gone (bounded).
        const running = async () =>
          (await database.sequelize.query(
            "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT COUNT(*) AS n FROM seq_1_to_%'",
            { type: QueryTypes.SELECT },
          )) as { n: number }[];
        for (let i = 0; i < 50 && (await running())[0]!.n > 0; i += 1)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await running()).toEqual([{ n: 0 }]);
      }
    }, 30_000);
  });
}
