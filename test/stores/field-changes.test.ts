import { Sequelize } from 'sequelize';
import {
  addSearchColumn,
  createResourceTable,
  defineResource,
  field,
  setFieldDefault,
  type SqlMigration,
} from '../../src/modules/kit';
import { newId } from '../../src/stores/ids';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { storeOf } from '../support/resource-samples';

// What `npm run new:field -- <module> <field> --search` and `--default <value>` write, run on a table that
// holds rows: rows written before the search shadow existed are found by ?q=, and an insert that leaves
// the field out gets the new default from the column (SQLite: from the store only, see field-changes.ts).

const TABLE = 'kit_grown';
// More rows than one batch of the fill, so it resumes after a batch.
const BEFORE = [
  { id: newId(), title: 'Une École', done: false },
  { id: newId(), title: '100% done', done: true },
  ...Array.from({ length: 1100 }, (_, index) => ({ id: newId(), title: `Filler ${index}`, done: false })),
];

const migrations: SqlMigration[] = [
  {
    name: 'kit-grown-0001-create',
    up: (queryInterface) =>
      createResourceTable(queryInterface, TABLE, (c) => ({ ...c.string('title'), ...c.boolean('done') })),
    down: (queryInterface) => queryInterface.dropTable(TABLE),
  },
  {
    // Rows written by the service before the next two migrations (as it ran then).
    name: 'kit-grown-0002-rows',
    up: async (queryInterface) => {
      await queryInterface.bulkInsert(
        TABLE,
        BEFORE.map((row) => ({ ...row, owner_id: 'grower', created_at: new Date(), updated_at: new Date() })),
      );
    },
    down: async (queryInterface) => {
      await queryInterface.bulkDelete(TABLE, { owner_id: 'grower' });
    },
  },
  {
    name: 'kit-grown-0003-search-title',
    transaction: false,
    up: (queryInterface) => addSearchColumn(queryInterface, TABLE, 'title', { kind: 'string' }),
    down: (queryInterface) => queryInterface.removeColumn(TABLE, 'title_search'),
  },
  {
    name: 'kit-grown-0004-default-done',
    up: (queryInterface) => setFieldDefault(queryInterface, TABLE, 'done', true),
    down: (queryInterface) => setFieldDefault(queryInterface, TABLE, 'done', null),
  },
];

const grown = defineResource({
  name: 'kit-grown',
  table: TABLE,
  modelName: 'KitGrown',
  fields: { title: field.string(), done: field.boolean({ default: true }) },
  search: ['title'],
  migrations,
});

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb' && engine.engine !== 'mssql')) {
  (target.skipReason ? describe.skip : describe)(
    `a searched field and a default added to a table with rows, on ${target.label}`,
    () => {
      const engine = useEngineDatabase(target, [resourceStore(grown)]);
      const databaseOf = engine.database;
      const store = () => storeOf(databaseOf(), grown);

      it('finds the rows written before the search shadow existed, as it finds new ones', async () => {
        // A database kept from an earlier run holds an earlier run's new row: gone first.
        await (databaseOf() as SqlDatabase).queryInterface().bulkDelete(TABLE, { title: 'ÉCOLE neuve' });
        await store().create('grower', { title: 'ÉCOLE neuve' } as never);
        // scanLimit past the table's rows: where no index serves ?q= (SQLite, MariaDB) one page examines them all.
        const found = await store().list(
          { ownerId: 'grower' },
          { where: [], sort: [], limit: 10, offset: 0, search: 'ecole', scanLimit: 5000 },
        );
        expect(found.items.map((item) => item.title).sort()).toEqual(['Une École', 'ÉCOLE neuve']);
        expect(
          (
            await store().list(
              { ownerId: 'grower' },
              { where: [], sort: [], limit: 10, offset: 0, search: '100%', scanLimit: 5000 },
            )
          ).items.map((item) => item.title),
        ).toEqual(['100% done']);
        const fillers = await store().list(
          { ownerId: 'grower' },
          { where: [], sort: [], limit: 1, offset: 0, search: 'filler', countUpTo: 2000, scanLimit: 5000 },
        );
        expect(fillers.total).toBe(1100); // every batch filled, the second after the first
      });

      it('gives the column the new default (the store gives it on every engine)', async () => {
        expect(await store().create('grower', { title: 'later' } as never)).toMatchObject({ done: true });
        if (target.engine === 'sqlite') return; // SQLite keeps the column's first default: see setFieldDefault
        // Another client inserting without the column: the DEFAULT is the table's.
        const sequelize = new Sequelize(engine.url(), { logging: false });
        try {
          const id = newId();
          await sequelize
            .getQueryInterface()
            .bulkInsert(TABLE, [
              { id, title: 'raw', owner_id: 'grower', created_at: new Date(), updated_at: new Date() },
            ]);
          expect(await store().findById(id, {})).toMatchObject({ done: true });
        } finally {
          await sequelize.close();
        }
      });
    },
  );
}
