import { QueryTypes, Sequelize, type QueryInterface } from 'sequelize';
import { MigrationError, MigrationRunner, type RunnableMigration } from '../../src/stores/sql/migration-runner';

// The migration runner that replaced umzug (src/stores/sql/migration-runner.ts) keeps what umzug 3 did here:
// the `schema_migrations` table as its SequelizeStorage made it (so databases migrated before read the same),
// registration order, one record per applied up, the last one reverted by down, its log events and message.

const TABLE = 'schema_migrations';

function migration(name: string, calls: string[], fail?: 'up' | 'down'): RunnableMigration {
  const step = (direction: 'up' | 'down') => async (context: QueryInterface) => {
    if (fail === direction) throw new Error(`${name} broke`);
    calls.push(`${direction} ${name}`);
    if (direction === 'up') await context.createTable(name, { id: { type: 'INTEGER', primaryKey: true } });
    else await context.dropTable(name);
  };
  return { name, up: step('up'), down: step('down') };
}

describe('the migration runner', () => {
  let sequelize: Sequelize;
  beforeEach(() => {
    sequelize = new Sequelize('sqlite::memory:', { logging: false });
  });
  afterEach(() => sequelize.close());

  it('applies pending migrations in registration order, records each, and reverts the last', async () => {
    const calls: string[] = [];
    const events: Record<string, unknown>[] = [];
    const migrations = [migration('b_first', calls), migration('a_second', calls), migration('c_third', calls)];
    const runner = new MigrationRunner(sequelize, TABLE, migrations, (event) => events.push(event));

    expect((await runner.up(2)).map((m) => m.name)).toEqual(['b_first', 'a_second']);
    expect((await runner.pending()).map((m) => m.name)).toEqual(['c_third']);
    expect((await runner.up()).map((m) => m.name)).toEqual(['c_third']);
    expect(await runner.up()).toEqual([]);
    expect((await runner.executed()).map((m) => m.name)).toEqual(['b_first', 'a_second', 'c_third']);

    expect((await runner.down()).map((m) => m.name)).toEqual(['c_third']);
    expect((await runner.pending()).map((m) => m.name)).toEqual(['c_third']);
    expect(calls).toEqual(['up b_first', 'up a_second', 'up c_third', 'down c_third']);
    expect(events.map(({ event, name }) => `${String(event)} ${String(name)}`)).toEqual([
      'migrating b_first',
      'migrated b_first',
      'migrating a_second',
      'migrated a_second',
      'migrating c_third',
      'migrated c_third',
      'reverting c_third',
      'reverted c_third',
    ]);
    expect(
      events
        .filter((event) => String(event.event).endsWith('ed'))
        .every((event) => typeof event.durationSeconds === 'number'),
    ).toBe(true);
  });

  it("keeps umzug's table: one `name` column, VARCHAR(255), the primary key; a record written before counts as applied", async () => {
    const runner = new MigrationRunner(sequelize, TABLE, [migration('one', []), migration('two', [])], () => undefined);
    await runner.pending(); // creates the table, as umzug did on its first look
    const columns = await sequelize.getQueryInterface().describeTable(TABLE);
    expect(Object.keys(columns)).toEqual(['name']);
    expect(columns.name).toMatchObject({ type: 'VARCHAR(255)', allowNull: false, primaryKey: true });
    await sequelize.query(`INSERT INTO ${TABLE} (name) VALUES ('one')`); // as a database migrated by umzug holds it
    expect((await runner.pending()).map((m) => m.name)).toEqual(['two']);
  });

  it("a failing step records nothing and throws umzug's message with the error as cause", async () => {
    const runner = new MigrationRunner(
      sequelize,
      TABLE,
      [migration('fine', []), migration('broken', [], 'up')],
      () => undefined,
    );
    const error = await runner.up().then(
      () => undefined,
      (thrown: unknown) => thrown as MigrationError,
    );
    expect(error).toBeInstanceOf(MigrationError);
    expect(error?.message).toBe('Migration broken (up) failed: Original error: broken broke');
    expect((error?.cause as Error).message).toBe('broken broke');
    const rows = await sequelize.query<{ name: string }>(`SELECT name FROM ${TABLE}`, { type: QueryTypes.SELECT });
    expect(rows.map((row) => row.name)).toEqual(['fine']);
  });
});
