import { createLogger } from '../../src/logger';
import { defineStore } from '../../src/stores/kit/definition';
import type { SqlMigration } from '../../src/stores/sql/migrations/migration';
import { SqlDatabase } from '../../src/stores/sql/sql-database';
import { checkMigrationsUndo } from '../support/migration-round-trip';

// The round trip the store suites run on every registered migration names a migration whose down does not
// undo its up, at that migration, whether the down throws or quietly leaves the schema otherwise.

const createTable: SqlMigration = {
  name: 'round-trip-0001-create',
  up: (queryInterface) =>
    queryInterface.sequelize.query('CREATE TABLE rt_things (id VARCHAR(36) PRIMARY KEY)').then(() => undefined),
  down: (queryInterface) => queryInterface.dropTable('rt_things'),
  downDestroys: [{ table: 'rt_things' }],
};

function databaseWith(second: SqlMigration): SqlDatabase {
  const store = defineStore({
    name: 'round-trip',
    migrations: [createTable, second],
    relational: () => ({}),
    mongodb: () => ({}),
  });
  return new SqlDatabase(
    {
      url: 'sqlite::memory:',
      engine: 'sqlite',
      timeoutMs: 10_000,
      migrationTimeoutMs: 60_000,
      connectAttempts: 1,
      cleanupIntervalMs: 0,
      stores: [store],
    },
    createLogger({ env: 'test', logLevel: 'silent' }),
  );
}

const addColumn = (down: SqlMigration['down'], declared = true): SqlMigration => ({
  name: 'round-trip-0002-add-colour',
  up: (queryInterface) =>
    queryInterface.sequelize.query('ALTER TABLE rt_things ADD COLUMN colour VARCHAR(20)').then(() => undefined),
  down,
  ...(declared ? { downDestroys: [{ table: 'rt_things', column: 'colour' }] } : {}),
});

describe('the migration round trip', () => {
  it.each([
    [
      'a down that does nothing',
      addColumn(async () => undefined),
      /migration 'round-trip-0002-add-colour' does not undo cleanly: after its down, table rt_things differs/,
    ],
    [
      'a down that throws',
      addColumn(async () => Promise.reject(new Error('this one is one-way'))),
      /migration 'round-trip-0002-add-colour' does not undo: its down failed: .*this one is one-way/,
    ],
    [
      'a down that drops a column it does not declare',
      addColumn((queryInterface) => queryInterface.removeColumn('rt_things', 'colour'), false),
      "migration 'round-trip-0002-add-colour' drops what it does not declare: add downDestroys: [{ table: 'rt_things', column: 'colour' }]",
    ],
  ])('names the migration with %s', async (_case, second, message) => {
    const database = databaseWith(second);
    await database.connect();
    try {
      await database.migrate();
      await expect(checkMigrationsUndo(database)).rejects.toThrow(message);
    } finally {
      await database.close();
    }
  });

  it('takes a down that renames back as no loss', async () => {
    const rename: SqlMigration = {
      name: 'round-trip-0002-rename-id',
      up: (queryInterface) =>
        queryInterface.sequelize.query('ALTER TABLE rt_things RENAME COLUMN id TO key').then(() => undefined),
      down: (queryInterface) =>
        queryInterface.sequelize.query('ALTER TABLE rt_things RENAME COLUMN key TO id').then(() => undefined),
    };
    const database = databaseWith(rename);
    await database.connect();
    try {
      await database.migrate();
      expect(await checkMigrationsUndo(database)).toEqual(['round-trip-0001-create', 'round-trip-0002-rename-id']);
    } finally {
      await database.close();
    }
  });

  it('passes migrations that undo cleanly, and leaves them applied', async () => {
    const database = databaseWith(addColumn((queryInterface) => queryInterface.removeColumn('rt_things', 'colour')));
    await database.connect();
    try {
      await database.migrate();
      expect(await checkMigrationsUndo(database)).toEqual(['round-trip-0001-create', 'round-trip-0002-add-colour']);
      expect((await database.migrator().status()).pending).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
