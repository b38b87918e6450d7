import { QueryTypes, Sequelize } from 'sequelize';
import { dropFieldColumn } from '../../src/stores/sql/migrations/field-rename-drop';
import { setFieldRequired } from '../../src/stores/sql/migrations/field-nullability';
import { rebuildSqlite } from '../../src/stores/sql/migrations/sqlite-rebuild';

// SQLite's table rebuild (a column made required, a referencing column dropped) runs in one transaction: a
// step that fails — any of them, failed here on purpose on a real SQLite database — leaves the table as it
// was (its definition, indexes and rows), foreign keys enforced again, and the same change runs afterwards.

const SCHEMA = [
  'CREATE TABLE `notes` (`id` VARCHAR(36) PRIMARY KEY)',
  'CREATE TABLE `tags` (`id` VARCHAR(36) PRIMARY KEY, `name` VARCHAR(200), `note` VARCHAR(36) REFERENCES `notes` (`id`) ON DELETE CASCADE, `rank` INTEGER)',
  'CREATE INDEX `tags_note` ON `tags` (`note`)',
  'CREATE UNIQUE INDEX `tags_note_name_unique` ON `tags` (`note`, `name`)',
];

async function database(): Promise<Sequelize> {
  const sequelize = new Sequelize('sqlite::memory:', { logging: false });
  await sequelize.query('PRAGMA foreign_keys = ON');
  for (const statement of SCHEMA) await sequelize.query(statement);
  await sequelize.query("INSERT INTO `notes` (`id`) VALUES ('n1'), ('n2')");
  await sequelize.query(
    "INSERT INTO `tags` (`id`, `name`, `note`, `rank`) VALUES ('t1', 'a', 'n1', 1), ('t2', 'b', 'n2', 2), ('t3', 'c', 'n1', NULL)",
  );
  return sequelize;
}

async function snapshot(sequelize: Sequelize) {
  const [objects] = await sequelize.query(
    "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  const [rows] = await sequelize.query('SELECT * FROM `tags` ORDER BY `id`');
  const [pragma] = await sequelize.query<{ foreign_keys: number }>('PRAGMA foreign_keys', { type: QueryTypes.SELECT });
  return { objects, rows, foreignKeys: pragma!.foreign_keys };
}

/** Fails the first statement matching `step` once, as a crash or a refused statement would. */
function failOnce(sequelize: Sequelize, step: RegExp): void {
  const query = sequelize.query.bind(sequelize);
  let failed = false;
  jest.spyOn(sequelize, 'query').mockImplementation(((sql: string, options?: unknown) => {
    if (!failed && step.test(sql)) {
      failed = true;
      return Promise.reject(new Error(`injected failure at: ${sql}`));
    }
    return query(sql, options as never);
  }) as never);
}

const STEPS: [string, RegExp][] = [
  ['creating the scratch table', /^CREATE TABLE `tags__rebuilt`/],
  ['copying the rows', /^INSERT INTO `tags__rebuilt`/],
  ['dropping the table', /^DROP TABLE `tags`$/],
  ['renaming the scratch table (the table is gone by then)', /^ALTER TABLE `tags__rebuilt` RENAME/],
  ['making the indexes again', /^CREATE UNIQUE INDEX `tags_note_name_unique`/],
  ['checking the foreign keys', /^PRAGMA foreign_key_check/],
  ['committing', /^COMMIT$/],
];

describe('SQLite table rebuild: all or nothing', () => {
  it.each(STEPS)('a failure %s leaves the table as it was; the change then runs', async (_step, pattern) => {
    const sequelize = await database();
    const before = await snapshot(sequelize);
    failOnce(sequelize, pattern);
    await expect(setFieldRequired(sequelize.getQueryInterface(), 'tags', 'name', true)).rejects.toThrow(
      'injected failure',
    );
    expect(await snapshot(sequelize)).toEqual(before);
    await setFieldRequired(sequelize.getQueryInterface(), 'tags', 'name', true);
    const after = await snapshot(sequelize);
    expect(after.rows).toEqual(before.rows);
    expect(after.foreignKeys).toBe(1);
    expect((after.objects as { name: string; sql: string }[]).find((object) => object.name === 'tags')!.sql).toMatch(
      /`name` VARCHAR\(200\) NOT NULL/,
    );
    expect((after.objects as { name: string }[]).map((object) => object.name)).toEqual(
      (before.objects as { name: string }[]).map((object) => object.name),
    );
    await sequelize.close();
  });

  it('a rebuild whose rows break a foreign key is refused by the check inside it, the table as it was', async () => {
    const sequelize = await database();
    await sequelize.query('PRAGMA foreign_keys = OFF');
    await sequelize.query("INSERT INTO `tags` (`id`, `name`, `note`) VALUES ('t4', 'd', 'gone')");
    await sequelize.query('PRAGMA foreign_keys = ON');
    const before = await snapshot(sequelize);
    await expect(rebuildSqlite(sequelize.getQueryInterface(), 'tags', (parts) => parts)).rejects.toThrow(
      'would break 1 foreign keys',
    );
    expect(await snapshot(sequelize)).toEqual(before);
    await sequelize.close();
  });

  it('removes a scratch table an earlier run left, then rebuilds', async () => {
    const sequelize = await database();
    await sequelize.query('CREATE TABLE `tags__rebuilt` (`id` VARCHAR(36))');
    await dropFieldColumn(sequelize.getQueryInterface(), 'tags', 'note');
    const [columns] = await sequelize.query('PRAGMA table_info(`tags`)');
    expect((columns as { name: string }[]).map((column) => column.name)).toEqual(['id', 'name', 'rank']);
    const [leftover] = await sequelize.query("SELECT name FROM sqlite_master WHERE name = 'tags__rebuilt'");
    expect(leftover).toEqual([]);
    await sequelize.close();
  });
});
