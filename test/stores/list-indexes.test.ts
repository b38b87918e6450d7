import { SchemaDriftError } from '../../src/stores/errors';
import { createRecordTable, defineResource, field, fieldColumns, type SqlMigration } from '../../src/modules/kit';
import { indexColumns, listIndexes } from '../../src/stores/kit/list-indexes';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { addListIndexes, listIndexColumns, removeListIndexes } from '../../src/stores/sql/migrations/list-index-steps';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';

// The list indexes a declaration needs: derived from it (which ones), added online to a table with rows, and
// refused at start-up while missing, on every relational engine (MongoDB declares them in its schema: see
// resource-driver-calls.test.ts).

// A table as a module generated before list indexes were derived made it: the owner's newest-first index only.
const createLegacy: SqlMigration = {
  name: 'list-index-fixture-0001-create',
  up: async (queryInterface) => {
    const c = await fieldColumns(queryInterface);
    await createRecordTable(queryInterface, 'li_notes', {
      ...c.string('title'),
      ...c.boolean('pinned'),
      ...c.integer('rank', { optional: true }),
      ...c.string('label', { caseInsensitive: true }),
    });
  },
  down: (queryInterface) => queryInterface.dropTable('li_notes'),
};

const legacy = defineResource({
  name: 'li-notes',
  table: 'li_notes',
  modelName: 'LiNote',
  fields: {
    title: field.string(),
    pinned: field.boolean(),
    rank: field.integer({ optional: true }),
    label: field.string({ caseInsensitive: true }),
  },
  filters: ['pinned', 'rank', 'label'],
  sort: ['title'],
  migrations: [createLegacy],
});

describe('the list indexes a declaration needs', () => {
  it('has one per sort key (owner and across owners), one per equality filter and sort key, one per range filter', () => {
    expect(listIndexes(legacy).map(indexColumns)).toContainEqual(['owner_id', 'created_at', 'id']);
    // What a migration adds: all but the owner's newest-first order, which every record table has from its creation.
    expect(listIndexColumns(legacy)).toEqual([
      ['owner_id', 'title', 'id'],
      ['title', 'id'],
      ['created_at', 'id'],
      ['owner_id', 'pinned', 'title', 'id'],
      ['owner_id', 'pinned', 'created_at', 'id'],
      ['owner_id', 'rank', 'id'],
      ['owner_id', 'label_folded', 'title', 'id'],
      ['owner_id', 'label_folded', 'created_at', 'id'],
    ]);
    expect(listIndexes(legacy).map((index) => index.serves)).toContain('pinned=… with sort=title');
  });
});

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb')) {
  (target.skipReason ? describe.skip : describe)(`list indexes on ${target.label}`, () => {
    const opened = useEngineDatabase(target, [resourceStore(legacy)]);
    const sql = () => opened.database() as SqlDatabase;

    it('refuses to start without them, naming each and the command that writes the migration; added online over rows, then accepted', async () => {
      const store = sql().store(resourceStore(legacy));
      for (let i = 0; i < 50; i += 1)
        await store.create(`owner-${i % 3}`, { title: `t${i % 7}`, pinned: i % 2 === 0, rank: i, label: `L${i}` });
      const refused = await sql()
        .checkSchema()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(SchemaDriftError);
      expect((refused as Error).message).toContain("resource 'li-notes': table li_notes lacks the list indexes");
      expect((refused as Error).message).toContain('(owner_id, pinned, title, id) for pinned=… with sort=title');
      expect((refused as Error).message).toContain('npm run new:indexes -- li-notes');
      expect((refused as Error).message).not.toContain('(owner_id, created_at, id)'); // that one the table has

      const missing = listIndexColumns(legacy);
      await addListIndexes(sql().queryInterface(), 'li_notes', missing);
      await addListIndexes(sql().queryInterface(), 'li_notes', missing); // again, as after a half-applied run: nothing to do
      await expect(sql().checkSchema()).resolves.toBeUndefined();
      const page = await store.list(
        { ownerId: 'owner-1' },
        {
          where: [{ field: 'pinned', comparison: 'eq', value: true }],
          sort: [{ field: 'title', descending: false }],
          limit: 5,
          offset: 0,
        },
      );
      expect(page.items.map((item) => item.title)).toEqual([...page.items.map((item) => item.title)].sort());

      await removeListIndexes(sql().queryInterface(), 'li_notes', missing);
      await expect(sql().checkSchema()).rejects.toBeInstanceOf(SchemaDriftError);
    });
  });
}
