import { randomBytes } from 'node:crypto';
import { DataTypes, type Sequelize } from 'sequelize';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { createDatabase } from '../../src/stores/create-database';
import { defineStore } from '../../src/stores/kit/definition';
import type { SqlMigration } from '../../src/stores/sql/migrations/migration';
import { addColumnIfMissing } from '../../src/stores/sql/migrations/schema-steps';
import { testEngines, type StartedEngine } from '../support/engines';

// Migrations run outside the request deadline, on a connection of their own (MIGRATION_TIMEOUT), and a
// step that fails half-way leaves nothing behind where the engine's DDL is transactional (PostgreSQL,
// SQL Server), so it runs again cleanly; elsewhere the steps themselves are written to run twice.

const logger = createLogger({ env: 'test', logLevel: 'silent' });
const SLEEP: Record<string, string> = {
  postgres: 'SELECT pg_sleep(1.5)',
  mysql: 'SELECT SLEEP(1.5)',
  mssql: "WAITFOR DELAY '00:00:01.500'",
};
const TRANSACTIONAL = new Set(['postgres', 'mssql']);

const engines = testEngines().filter((target) => target.engine !== 'sqlite' && target.engine !== 'mongodb');

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`migrations on ${target.label}`, () => {
    let started: StartedEngine | undefined;
    beforeAll(async () => {
      started = await target.start();
    }, 240_000);
    afterAll(() => started?.stop());

    const tag = () => randomBytes(4).toString('hex');
    const open = (migrations: SqlMigration[]) => {
      const store = defineStore<object>({
        name: `probe-${tag()}`,
        migrations,
        relational: () => ({}),
        mongodb: () => ({}),
      });
      // DATABASE_TIMEOUT 1s: the requests' deadline, shorter than the slow step below.
      const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: started!.url, DATABASE_TIMEOUT: '1s' });
      return createDatabase(config, logger, [store], { cleanupJob: false, connectAttempts: 3 });
    };

    it('a step slower than DATABASE_TIMEOUT completes (MIGRATION_TIMEOUT bounds it)', async () => {
      const database = open([
        {
          name: `9100-slow-${tag()}`,
          up: async (qi) => void (await qi.sequelize.query(SLEEP[target.engine])),
          down: async () => undefined,
        },
      ]);
      try {
        await database.connect();
        await expect(database.migrate()).resolves.toBeUndefined();
      } finally {
        await database.close();
      }
    }, 60_000);

    it('a step that fails half-way is rolled back where DDL is transactional, and runs again', async () => {
      const table = `probe_${tag()}`;
      const create: SqlMigration = {
        name: `9101-create-${table}`,
        up: (qi) => qi.createTable(table, { id: { type: DataTypes.INTEGER, primaryKey: true } }),
        down: (qi) => qi.dropTable(table),
      };
      let fail = true;
      const addColumn: SqlMigration = {
        name: `9102-add-${table}`,
        up: async (qi) => {
          await addColumnIfMissing(qi, table, 'extra', { type: DataTypes.STRING(20), allowNull: true });
          if (fail) throw new Error('the second step failed');
        },
        down: (qi) => qi.removeColumn(table, 'extra'),
      };
      const database = open([create, addColumn]);
      try {
        await database.connect();
        await expect(database.migrate()).rejects.toThrow('the second step failed');
        const columns = await (database as unknown as { sequelize: Sequelize }).sequelize
          .getQueryInterface()
          .describeTable(table);
        expect('extra' in columns).toBe(!TRANSACTIONAL.has(target.engine));
        fail = false;
        await database.migrate(); // the retry: the whole step again
        const after = await (database as unknown as { sequelize: Sequelize }).sequelize
          .getQueryInterface()
          .describeTable(table);
        expect('extra' in after).toBe(true);
      } finally {
        await database.close();
      }
    }, 60_000);
  });
}
