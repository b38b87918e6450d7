import {
  addFieldCheck,
  createResourceTable,
  defineResource,
  field,
  removeFieldCheck,
  type SqlMigration,
} from '../../src/modules/kit';
import { newId } from '../../src/stores/ids';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { checkConstraintsOf } from '../../src/stores/sql/migrations/check-catalog';
import { tableDrift } from '../../src/stores/sql/migrations/table-drift';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';

// Checks across fields held by the database (check-constraints.ts): one CHECK constraint per check, named
// `<table>_<left>_<op>_<right>_check`; added to a table with rows only once no row breaks it (counted first,
// nothing altered meanwhile); removed by its own step; the start-up comparison names a missing, different or
// undeclared one with the command that writes its migration. A row with an empty side passes, as the store judges.

const TABLE = 'kit_checked_spans';

const migrations: SqlMigration[] = [
  {
    name: 'kit-checked-spans-0001-create',
    up: (queryInterface) =>
      createResourceTable(
        queryInterface,
        TABLE,
        (c) => ({
          ...c.integer('low'),
          ...c.integer('high'),
          ...c.datetime('closed_at', { optional: true }),
          ...c.string('code', { default: 'a' }),
          ...c.string('alt', { default: 'b' }),
          ...c.number('price', { default: 1 }),
        }),
        // Strings and an integer against a number: PostgreSQL shows them back with casts (`(code)::text`, `::double precision`).
        { checks: ['high >= low', 'code != alt', 'price >= low'] },
      ),
    down: (queryInterface) => queryInterface.dropTable(TABLE),
  },
];

const fields = {
  low: field.integer(),
  high: field.integer(),
  closedAt: field.datetime({ optional: true }),
  code: field.string({ default: 'a' }),
  alt: field.string({ default: 'b' }),
  price: field.number({ default: 1 }),
};
const spans = defineResource({
  name: 'kit-spans',
  table: TABLE,
  modelName: 'KitSpan',
  fields,
  checks: ['high >= low', 'code != alt', 'price >= low'],
  migrations,
});

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb' && engine.engine !== 'mssql')) {
  (target.skipReason ? describe.skip : describe)(`checks across fields held by ${target.label}`, () => {
    const opened = useEngineDatabase(target, [resourceStore(spans)]);
    const qi = () => (opened.database() as SqlDatabase).queryInterface();
    const insert = (values: Record<string, unknown>, owner = 'writer') =>
      qi().bulkInsert(TABLE, [
        { id: newId(), owner_id: owner, price: 100, created_at: new Date(), updated_at: new Date(), ...values },
      ]);
    const names = async () =>
      [...(await checkConstraintsOf(qi(), TABLE)).keys()].filter((name) => /_high_(ge|lt)_/.test(name)).sort();

    it('holds the declared check from the table’s creation: a row breaking it is refused, the edge passes', async () => {
      expect(await names()).toEqual([`${TABLE}_high_ge_low_check`]);
      await insert({ low: 3, high: 3 });
      await expect(insert({ low: 3, high: 2 })).rejects.toThrow();
      await expect(insert({ low: 1, high: 2, code: 'x', alt: 'x' })).rejects.toThrow();
      await expect(insert({ low: 2, high: 2, price: 1.5 })).rejects.toThrow();
      expect(await tableDrift(qi(), spans)).toEqual([]); // as the engine shows them back, casts and all
      await qi().bulkDelete(TABLE, {});
    });

    it('adds a check to a table with rows only once none breaks it, naming how many do; removes it again', async () => {
      await qi().bulkDelete(TABLE, {});
      await insert({ low: 1, high: 2, closed_at: null }, 'adding');
      await expect(addFieldCheck(qi(), TABLE, 'high < low')).rejects.toThrow(
        /^1 row of kit_checked_spans breaks high < low: change it first/,
      );
      await insert({ low: 1, high: 9 }, 'adding');
      await expect(addFieldCheck(qi(), TABLE, 'high < low')).rejects.toThrow(
        /^2 rows of kit_checked_spans break high < low: change them first/,
      );
      expect(await names()).toEqual([`${TABLE}_high_ge_low_check`]); // refused before anything changed
      await qi().bulkDelete(TABLE, { owner_id: 'adding' });
      await addFieldCheck(qi(), TABLE, 'high < low');
      expect(await names()).toEqual([`${TABLE}_high_ge_low_check`, `${TABLE}_high_lt_low_check`]);
      await expect(insert({ low: 1, high: 1 })).rejects.toThrow(); // the two together hold no row
      await removeFieldCheck(qi(), TABLE, 'high < low');
      expect(await names()).toEqual([`${TABLE}_high_ge_low_check`]);
    });

    it('names a missing or undeclared check at start-up, with the command that writes its migration', async () => {
      await removeFieldCheck(qi(), TABLE, 'high >= low');
      expect(await tableDrift(qi(), spans)).toEqual([
        expect.stringContaining(
          `the table has no CHECK constraint ${TABLE}_high_ge_low_check (high >= low): npm run new:field -- kit-spans --check 'high >= low'`,
        ),
      ]);
      await addFieldCheck(qi(), TABLE, 'high >= low');
      await addFieldCheck(qi(), TABLE, 'low != high');
      expect(await tableDrift(qi(), spans)).toEqual([
        expect.stringContaining(
          `the CHECK constraint ${TABLE}_low_ne_high_check is not in the declaration: a check taken out of resource.ts is removed by its migration`,
        ),
      ]);
      await removeFieldCheck(qi(), TABLE, 'low != high');
      expect(await tableDrift(qi(), spans)).toEqual([]);
    });
  });
}
