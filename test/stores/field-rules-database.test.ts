import { createResourceTable, defineResource, field, setFieldRules, type SqlMigration } from '../../src/modules/kit';
import { RuleViolationError } from '../../src/stores/errors';
import { newId } from '../../src/stores/ids';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { replaceCheckConstraint } from '../../src/stores/sql/migrations/check-constraints';
import { checkConstraintsOf } from '../../src/stores/sql/migrations/check-catalog';
import { renameFieldColumn } from '../../src/stores/sql/migrations/field-rename-drop';
import { tableDrift } from '../../src/stores/sql/migrations/table-drift';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { storeOf } from '../support/resource-samples';

// A field's rules held by the database itself (check-constraints.ts): a row written straight into the table
// with a value the declaration refuses is refused by the engine, the store tells the refusal as the field's
// 422, the start-up comparison sees a missing or different constraint, and a rule narrowed on a table with
// rows is refused, naming how many rows break it, before anything changes.

const TABLE = 'kit_ruled';

const migrations: SqlMigration[] = [
  {
    name: 'kit-ruled-0001-create',
    up: (queryInterface) =>
      createResourceTable(queryInterface, TABLE, (c) => ({
        ...c.string('status', { enum: ['open', 'in_progress', 'closed'], default: 'open' }),
        ...c.integer('priority', { minimum: 1, maximum: 5, default: 3 }),
        ...c.number('score', { optional: true, minimum: 0 }),
        ...c.string('code', { optional: true, minLength: 3, pattern: '^[A-Z]{3}$' }),
      })),
    down: (queryInterface) => queryInterface.dropTable(TABLE),
  },
];

const fields = {
  status: field.string({ enum: ['open', 'in_progress', 'closed'], default: 'open' }),
  priority: field.integer({ minimum: 1, maximum: 5, default: 3 }),
  score: field.number({ optional: true, minimum: 0 }),
  code: field.string({ optional: true, minLength: 3, pattern: '^[A-Z]{3}$' }),
};
const ruled = defineResource({
  name: 'kit-ruled',
  table: TABLE,
  modelName: 'KitRuled',
  fields,
  filters: ['status'],
  migrations,
});

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb' && engine.engine !== 'mssql')) {
  (target.skipReason ? describe.skip : describe)(`field rules held by ${target.label}`, () => {
    const opened = useEngineDatabase(target, [resourceStore(ruled)]);
    const qi = () => (opened.database() as SqlDatabase).queryInterface();
    const store = () => storeOf(opened.database(), ruled);
    const insert = (values: Record<string, unknown>) =>
      qi().bulkInsert(TABLE, [
        {
          id: newId(),
          owner_id: 'writer',
          status: 'open',
          priority: 3,
          created_at: new Date(),
          updated_at: new Date(),
          ...values,
        },
      ]);
    const patternHeld = target.engine !== 'sqlite';

    it('never holds a fraction in an integer field: SQLite refuses it, whose INTEGER column would keep it', async () => {
      // PostgreSQL and MariaDB round a fraction written as a literal into an INTEGER column; SQLite would keep it.
      const written = (write: Promise<unknown>) =>
        write.then(
          () => true,
          () => false,
        );
      await insert({ priority: 2, owner_id: 'whole' });
      const inserted = await written(insert({ priority: 2.5, owner_id: 'whole' }));
      const updated = await written(
        qi().sequelize.query(`UPDATE ${TABLE} SET priority = 2.5 WHERE owner_id = 'whole'`),
      );
      if (target.engine === 'sqlite') expect([inserted, updated]).toEqual([false, false]);
      const [rows] = await qi().sequelize.query(`SELECT priority FROM ${TABLE} WHERE owner_id = 'whole'`);
      for (const row of rows as { priority: unknown }[]) expect(Number.isInteger(Number(row.priority))).toBe(true);
      await qi().bulkDelete(TABLE, { owner_id: 'whole' });
      expect(await tableDrift(qi(), ruled)).toEqual([]);
    });

    it('refuses a row written straight into the table with a value outside each rule', async () => {
      await insert({ status: 'closed', priority: 5, score: 0, code: 'ABC' });
      for (const bad of [{ status: 'bogus' }, { priority: 0 }, { priority: 6 }, { score: -0.5 }, { code: 'AB' }])
        await expect(insert(bad)).rejects.toThrow();
      if (patternHeld) await expect(insert({ code: 'abc' })).rejects.toThrow();
      else await insert({ code: 'abc' }); // SQLite's CHECK has no regular expressions: the routes hold the pattern there
    });

    it('names the constraints deterministically and tells a refusal reaching the store as the field’s rule', async () => {
      expect([...(await checkConstraintsOf(qi(), TABLE)).keys()].sort()).toEqual([
        `${TABLE}_code_check`,
        `${TABLE}_priority_check`,
        `${TABLE}_score_check`,
        `${TABLE}_status_check`,
      ]);
      const refused = await store()
        .create('writer', { status: 'bogus', priority: 3 } as never)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RuleViolationError);
      expect(refused).toMatchObject({ field: 'status', message: 'must be one of: open, in_progress, closed' });
      const created = await store().create('writer', { priority: 2 } as never);
      await expect(store().update(created.id, {}, { priority: 9 } as never)).rejects.toMatchObject({
        field: 'priority',
        message: 'must be from 1 to 5',
      });
    });

    it('finds no drift, then a missing or different constraint, naming the command that fixes it', async () => {
      expect(await tableDrift(qi(), ruled)).toEqual([]);
      await setFieldRules(qi(), TABLE, 'priority', { minimum: 1, maximum: 9 });
      expect(await tableDrift(qi(), ruled)).toEqual([
        expect.stringMatching(
          /^the CHECK constraint kit_ruled_priority_check says .*, the declaration says from 1 to 5: npm run new:field -- kit-ruled priority --range 1\.\.5/,
        ),
      ]);
      await setFieldRules(qi(), TABLE, 'priority', {});
      expect(await tableDrift(qi(), ruled)).toEqual([
        expect.stringContaining('column priority has no CHECK constraint kit_ruled_priority_check (from 1 to 5)'),
      ]);
      await setFieldRules(qi(), TABLE, 'priority', { minimum: 1, maximum: 5 });
      expect(await tableDrift(qi(), ruled)).toEqual([]);
    });

    it('widens a rule on a table with rows, and refuses to narrow it while rows break it, naming how many', async () => {
      await setFieldRules(qi(), TABLE, 'status', { enum: ['open', 'in_progress', 'closed', 'archived'] });
      await insert({ status: 'archived', owner_id: 'narrowing' });
      const before = await checkConstraintsOf(qi(), TABLE);
      // One breaking row is enough to refuse.
      await expect(setFieldRules(qi(), TABLE, 'status', { enum: ['open', 'in_progress', 'closed'] })).rejects.toThrow(
        /^1 row of kit_ruled holds a status that is not one of: open, in_progress, closed: change it first/,
      );
      // The engine's own refusal (a row written between the count and the ALTER) keeps the old rule: one statement.
      await expect(
        replaceCheckConstraint(qi(), TABLE, 'status', { enum: ['open', 'in_progress', 'closed'] }),
      ).rejects.toThrow();
      expect(await checkConstraintsOf(qi(), TABLE)).toEqual(before);
      await expect(insert({ status: 'bogus' })).rejects.toThrow();
      await insert({ status: 'archived', owner_id: 'narrowing' });
      await expect(setFieldRules(qi(), TABLE, 'status', { enum: ['open', 'in_progress', 'closed'] })).rejects.toThrow(
        /^2 rows of kit_ruled hold a status that is not one of: open, in_progress, closed/,
      );
      expect(await checkConstraintsOf(qi(), TABLE)).toEqual(before); // refused before anything changed
      await qi().bulkDelete(TABLE, { owner_id: 'narrowing' });
      await setFieldRules(qi(), TABLE, 'status', { enum: ['open', 'in_progress', 'closed'] });
      await expect(insert({ status: 'archived' })).rejects.toThrow();
      expect(await tableDrift(qi(), ruled)).toEqual([]);
    });

    it('renames the constraint with its column, still holding the rule', async () => {
      await renameFieldColumn(qi(), TABLE, 'score', 'grade');
      const names = [...(await checkConstraintsOf(qi(), TABLE)).keys()];
      expect(names).toContain(`${TABLE}_grade_check`);
      expect(names).not.toContain(`${TABLE}_score_check`);
      await expect(insert({ grade: -1 })).rejects.toThrow();
      await renameFieldColumn(qi(), TABLE, 'grade', 'score');
      expect(await tableDrift(qi(), ruled)).toEqual([]);
    });
  });
}
