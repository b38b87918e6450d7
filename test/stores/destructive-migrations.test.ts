import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DataTypes } from 'sequelize';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { createDatabase } from '../../src/stores/create-database';
import { DestructiveMigrationError } from '../../src/stores/errors';
import { defineStore } from '../../src/stores/kit/definition';
import type { SqlMigration } from '../../src/stores/sql/migrations/migration';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { testEngines, type StartedEngine } from '../support/engines';

// A migration that drops a table, or a column holding values, is not run by start-up (MIGRATE_ON_START):
// migrate() refuses, applying nothing, naming it and the command that runs it; `migrate({ allowDestructive
// })` (`npm run db:migrate -- up --allow-destructive`) runs it. Where the table or column is empty or
// absent, nothing is lost, and start-up runs it. On every relational engine given (SQLite, PostgreSQL and MariaDB here; SQL Server in CI).

const logger = createLogger({ env: 'test', logLevel: 'silent' });
const engines = testEngines().filter((target) => target.engine !== 'mongodb');

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`destructive migrations on ${target.label}`, () => {
    let started: StartedEngine | undefined;
    let folder: string | undefined;
    let url = '';
    beforeAll(async () => {
      started = await target.start();
      // Two databases opened one after the other must see the same SQLite file (an in-memory one is per connection).
      folder = target.engine === 'sqlite' ? mkdtempSync(path.join(tmpdir(), 'destructive-')) : undefined;
      url = folder ? `sqlite:${path.join(folder, 'app.sqlite')}` : started.url;
    }, 240_000);
    afterAll(async () => {
      await started?.stop();
      if (folder) rmSync(folder, { recursive: true, force: true });
    });

    const open = (migrations: SqlMigration[]) => {
      const store = defineStore<object>({
        name: `destructive-${randomBytes(4).toString('hex')}`,
        migrations,
        relational: () => ({}),
        mongodb: () => ({}),
      });
      const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url, DATABASE_TIMEOUT: '5s' });
      return createDatabase(config, logger, [store], { cleanupJob: false, connectAttempts: 3 }) as SqlDatabase;
    };

    /** A table with rows (colour set on one) made by the first release; the second drops colour, the third the table. */
    function releases(table: string, withRows: boolean) {
      const create: SqlMigration = {
        name: `${table}-0001-create`,
        up: async (qi) => {
          await qi.createTable(table, {
            id: { type: DataTypes.STRING(36), primaryKey: true },
            colour: { type: DataTypes.STRING(20), allowNull: true },
          });
          if (withRows)
            await qi.bulkInsert(table, [
              { id: 'a', colour: 'red' },
              { id: 'b', colour: null },
            ]);
        },
        down: (qi) => qi.dropTable(table),
      };
      const dropColour: SqlMigration = {
        name: `${table}-0002-drop-colour`,
        up: (qi) => qi.removeColumn(table, 'colour'),
        down: (qi) => qi.addColumn(table, 'colour', { type: DataTypes.STRING(20), allowNull: true }),
        destroys: [{ table, column: 'colour' }],
      };
      const dropTable: SqlMigration = {
        name: `${table}-0003-remove-module`,
        up: (qi) => qi.dropTable(table),
        down: async () => undefined,
        destroys: [{ table }],
      };
      return { create, dropColour, dropTable };
    }

    const columnsOf = async (database: SqlDatabase, table: string) =>
      (await database.queryInterface().tableExists(table))
        ? Object.keys(await database.queryInterface().describeTable(table)).sort()
        : undefined;

    it('start-up refuses a drop of data, naming the migrations and the command, and applies nothing; the command runs them', async () => {
      const table = `dm_${randomBytes(3).toString('hex')}`;
      const { create, dropColour, dropTable } = releases(table, true);
      const first = open([create]);
      await first.connect();
      await first.migrate();
      await first.close();

      const next = open([create, dropColour, dropTable]);
      await next.connect();
      try {
        const refusal = await next.migrate().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refusal).toBeInstanceOf(DestructiveMigrationError);
        const message = (refusal as Error).message;
        expect(message).toContain(`${dropColour.name} (destroys column ${table}.colour (values))`);
        expect(message).toContain(`${dropTable.name} (destroys table ${table} (rows))`);
        expect(message).toContain('Back the database up, then run: npm run db:migrate -- up --allow-destructive');
        expect(await columnsOf(next, table)).toEqual(['colour', 'id']);
        expect((await next.migrator().status()).pending).toEqual([dropColour.name, dropTable.name]);

        await next.migrate({ allowDestructive: true });
        expect(await columnsOf(next, table)).toBeUndefined();
        expect((await next.migrator().status()).pending).toEqual([]);
      } finally {
        await next.close();
      }
    }, 60_000);

    it('start-up runs them where nothing would be lost (an empty table, a column without values, a fresh database)', async () => {
      const table = `dm_${randomBytes(3).toString('hex')}`;
      const { create, dropColour } = releases(table, false);
      const first = open([create]);
      await first.connect();
      await first.migrate();
      await first.close();
      const next = open([create, dropColour]);
      await next.connect();
      try {
        await next.migrate();
        expect(await columnsOf(next, table)).toEqual(['id']);
      } finally {
        await next.close();
      }
      const fresh = releases(`dm_${randomBytes(3).toString('hex')}`, true);
      const replay = open([fresh.create, fresh.dropColour, fresh.dropTable]); // the table does not exist before the run
      await replay.connect();
      try {
        await replay.migrate();
      } finally {
        await replay.close();
      }
    }, 60_000);

    it('db:migrate down refuses to drop an added column or a table that holds data, naming it; --allow-destructive runs it', async () => {
      const table = `dm_${randomBytes(3).toString('hex')}`;
      const { create } = releases(table, true);
      const addShade: SqlMigration = {
        name: `${table}-0002-add-shade`,
        up: async (qi) => {
          await qi.addColumn(table, 'shade', { type: DataTypes.STRING(20), allowNull: true });
          await qi.bulkUpdate(table, { shade: 'dark' }, { id: 'a' });
        },
        down: (qi) => qi.removeColumn(table, 'shade'),
        downDestroys: [{ table, column: 'shade' }],
      };
      const database = open([{ ...create, downDestroys: [{ table }] }, addShade]);
      await database.connect();
      try {
        await database.migrate();
        const refusal = await database
          .migrator()
          .down()
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(refusal).toBeInstanceOf(DestructiveMigrationError);
        expect((refusal as Error).message).toContain(`${addShade.name} (destroys column ${table}.shade (values))`);
        expect((refusal as Error).message).toContain('npm run db:migrate -- down --allow-destructive');
        expect(await columnsOf(database, table)).toEqual(['colour', 'id', 'shade']); // refused before anything ran
        expect(await database.migrator().down({ allowDestructive: true })).toEqual([addShade.name]);
        await expect(database.migrator().down()).rejects.toThrow(`(destroys table ${table} (rows))`);
        await database.queryInterface().bulkDelete(table, {});
        expect(await database.migrator().down()).toEqual([create.name]); // an empty table loses nothing
      } finally {
        await database.close();
      }
    }, 60_000);
  });
}
