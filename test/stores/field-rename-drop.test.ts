import { UniqueConstraintError, type QueryInterface } from 'sequelize';
import { addFieldColumns, createResourceTable, defineResource, field, listIndexColumns } from '../../src/modules/kit';
import type { Fields } from '../../src/stores/kit/fields';
import type { AnyResource as Resource } from '../../src/stores/kit/resource';
import {
  dropFieldColumn,
  renamedIndexName,
  renameFieldColumn,
  restoreFieldColumns,
} from '../../src/stores/sql/migrations/field-rename-drop';
import { setFieldRequired } from '../../src/stores/sql/migrations/field-nullability';
import { tableDrift } from '../../src/stores/sql/migrations/table-drift';
import { describeTableShape, type TableShape } from '../../src/stores/sql/migrations/table-schema';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';

// A rename and a drop on a populated table (what `npm run new:field -- <module> <field> --rename|--drop`
// writes) leave the table exactly as a fresh create of the new declaration makes it, on every relational
// engine: same columns, types, nullability and binary collation, same indexes under the same names, same
// foreign keys with their ON DELETE rule; the start-up comparison finds nothing; the data stays.

const parent = defineResource({
  name: 'fc-notes',
  table: 'fc_notes',
  modelName: 'FcNote',
  fields: { title: field.string() },
  migrations: [],
});

const before = defineResource({
  name: 'fc-tags',
  table: 'fc_tags',
  modelName: 'FcTag',
  fields: {
    name: field.string(),
    label: field.string({ optional: true, caseInsensitive: true }),
    note: field.reference(() => parent, { onDelete: 'cascade' }),
    rank: field.integer({ optional: true }),
  },
  unique: [['note', 'name'], ['label']],
  filters: ['note', 'name', 'label'],
  sort: ['name'],
  migrations: [],
});

const renamed = defineResource({
  name: 'fc-tags-renamed',
  table: 'fc_tags',
  modelName: 'FcTagRenamed',
  fields: {
    title: field.string(),
    caption: field.string({ optional: true, caseInsensitive: true }),
    parent: field.reference(() => parent, { onDelete: 'cascade' }),
    rank: field.integer({ optional: true }),
  },
  unique: [['parent', 'title'], ['caption']],
  filters: ['parent', 'title', 'caption'],
  sort: ['title'],
  migrations: [],
});

const dropped = defineResource({
  name: 'fc-tags-dropped',
  table: 'fc_tags',
  modelName: 'FcTagDropped',
  fields: { title: field.string(), rank: field.integer({ optional: true }) },
  filters: ['title'],
  sort: ['title'],
  migrations: [],
});

/** What the generator's first migration of each declaration does. */
async function createFresh(queryInterface: QueryInterface, resource: Resource): Promise<void> {
  const f = resource.fields as Fields;
  await createResourceTable(
    queryInterface,
    resource.table,
    (c) =>
      Object.assign(
        {},
        ...Object.entries(f).map(([name, definition]) => {
          const column = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
          if (definition.kind === 'reference')
            return c.reference(column, 'fc_notes', {
              optional: definition.optional,
              onDelete: definition.references!.onDelete,
            });
          if (definition.kind === 'string')
            return c.string(column, { optional: definition.optional, caseInsensitive: definition.caseInsensitive });
          return c[definition.kind as 'integer'](column, { optional: definition.optional });
        }),
      ),
    {
      unique: resource.unique.map((key) => key.map((name) => (f[name]!.caseInsensitive ? `${name}_folded` : name))),
      indexes: listIndexColumns(resource),
    },
  );
}

/** The shape with its lists in a stable order (engines list columns and indexes in their own orders). */
function sorted(shape: TableShape | undefined): unknown {
  if (!shape) return undefined;
  return {
    columns: Object.fromEntries(Object.entries(shape.columns).sort(([a], [b]) => a.localeCompare(b))),
    indexes: [...shape.indexes].sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: [...shape.foreignKeys].sort((a, b) => a.column.localeCompare(b.column)),
  };
}

describe('the index names a rename gives', () => {
  it('follows the kit-derived names (list indexes, unique keys, a reference index) and keeps any other name', () => {
    expect(
      renamedIndexName(
        'tags',
        'tags_by_owner_name_created_at',
        ['owner_id', 'name', 'created_at', 'id'],
        ['owner_id', 'label', 'created_at', 'id'],
      ),
    ).toBe('tags_by_owner_label_created_at');
    expect(
      renamedIndexName('tags', 'tags_note_name_unique', ['owner_id', 'note', 'name'], ['owner_id', 'note', 'label']),
    ).toBe('tags_note_label_unique');
    expect(renamedIndexName('tags', 'tags_note', ['note'], ['parent'])).toBe('tags_parent');
    expect(renamedIndexName('tags', 'my_own_index', ['name'], ['label'])).toBe('my_own_index');
  });
});

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb')) {
  (target.skipReason ? describe.skip : describe)(`renaming and dropping a field on ${target.label}`, () => {
    const opened = useEngineDatabase(target, []);
    const qi = () => (opened.database() as SqlDatabase).queryInterface();
    const reset = async () => {
      await qi().dropTable('fc_tags');
      await qi().dropTable('fc_notes');
      await createFresh(qi(), parent);
    };
    const freshShape = async (resource: Resource) => {
      await qi().dropTable('fc_tags');
      await createFresh(qi(), resource);
      return sorted(await describeTableShape(qi(), 'fc_tags'));
    };

    it('renames in place: the populated table is then what a fresh create of the new declaration makes, and its rows stay', async () => {
      await reset();
      await createFresh(qi(), before);
      // The stores are not registered here: rows are written with SQL, as an old release would have.
      const q = (name: string) => qi().quoteIdentifier(name);
      const now = new Date().toISOString().replace('T', ' ').slice(0, 23);
      await qi().sequelize.query(
        `INSERT INTO ${q('fc_notes')} (id, owner_id, title, created_at, updated_at) VALUES ('n1', 'o1', 'note', '${now}', '${now}')`,
      );
      for (const [id, name] of [
        ['t1', 'Dup'],
        ['t2', 'dup'],
        ['t3', 'dup '],
      ]) {
        await qi().sequelize.query(
          `INSERT INTO ${q('fc_tags')} (id, owner_id, name, note, created_at, updated_at) VALUES ('${id}', 'o1', '${name}', 'n1', '${now}', '${now}')`,
        );
      }
      expect(await tableDrift(qi(), before)).toEqual([]);

      await renameFieldColumn(qi(), 'fc_tags', 'name', 'title');
      await renameFieldColumn(qi(), 'fc_tags', 'label', 'caption');
      await renameFieldColumn(qi(), 'fc_tags', 'note', 'parent');
      await renameFieldColumn(qi(), 'fc_tags', 'note', 'parent'); // again, as after a half-applied run: nothing to do
      expect(await tableDrift(qi(), renamed)).toEqual([]);
      const [rows] = await qi().sequelize.query(`SELECT title FROM ${q('fc_tags')} ORDER BY id`);
      expect((rows as { title: string }[]).map((row) => row.title)).toEqual(['Dup', 'dup', 'dup ']);
      // The binary collation and the unique key survived: 'dup' and 'Dup' still differ, and an exact repeat is refused.
      await expect(
        qi().sequelize.query(
          `INSERT INTO ${q('fc_tags')} (id, owner_id, title, parent, created_at, updated_at) VALUES ('t4', 'o1', 'dup', 'n1', '${now}', '${now}')`,
        ),
      ).rejects.toBeInstanceOf(UniqueConstraintError);
      await qi().sequelize.query(
        `INSERT INTO ${q('fc_tags')} (id, owner_id, title, parent, created_at, updated_at) VALUES ('t5', 'o1', 'DUP', 'n1', '${now}', '${now}')`,
      );
      await qi().sequelize.query(`DELETE FROM ${q('fc_tags')} WHERE id = 't5'`);
      // ON DELETE CASCADE survived.
      await qi().sequelize.query(`DELETE FROM ${q('fc_notes')} WHERE id = 'n1'`);
      const [left] = await qi().sequelize.query(`SELECT id FROM ${q('fc_tags')}`);
      expect(left).toEqual([]);

      const afterRename = sorted(await describeTableShape(qi(), 'fc_tags'));
      expect(afterRename).toEqual(await freshShape(renamed));
    });

    it('undoes a rename by renaming back: the table is the first declaration again', async () => {
      await reset();
      await createFresh(qi(), renamed);
      await renameFieldColumn(qi(), 'fc_tags', 'title', 'name');
      await renameFieldColumn(qi(), 'fc_tags', 'caption', 'label');
      await renameFieldColumn(qi(), 'fc_tags', 'parent', 'note');
      expect(await tableDrift(qi(), before)).toEqual([]);
      const back = sorted(await describeTableShape(qi(), 'fc_tags'));
      expect(back).toEqual(await freshShape(before));
    });

    it('drops a field with its indexes, unique keys and foreign key: the table is a fresh create without it', async () => {
      await reset();
      await createFresh(qi(), renamed);
      const q = (name: string) => qi().quoteIdentifier(name);
      const now = new Date().toISOString().replace('T', ' ').slice(0, 23);
      await qi().sequelize.query(
        `INSERT INTO ${q('fc_notes')} (id, owner_id, title, created_at, updated_at) VALUES ('n1', 'o1', 'note', '${now}', '${now}')`,
      );
      await qi().sequelize.query(
        `INSERT INTO ${q('fc_tags')} (id, owner_id, title, parent, rank, created_at, updated_at) VALUES ('t1', 'o1', 'kept', 'n1', 3, '${now}', '${now}')`,
      );
      await dropFieldColumn(qi(), 'fc_tags', 'parent');
      await dropFieldColumn(qi(), 'fc_tags', 'caption');
      await dropFieldColumn(qi(), 'fc_tags', 'caption'); // again: nothing to do
      expect(await tableDrift(qi(), dropped)).toEqual([]);
      const [rows] = await qi().sequelize.query(`SELECT title, ${q('rank')} FROM ${q('fc_tags')}`);
      expect(rows).toEqual([{ title: 'kept', rank: 3 }]);
      const afterDrop = sorted(await describeTableShape(qi(), 'fc_tags'));
      // Undone over rows, a required field comes back nullable (its values are gone), and the start-up check says so.
      await restoreFieldColumns(qi(), 'fc_tags', (c) => c.string('colour'));
      expect(
        await tableDrift(
          qi(),
          defineResource<Fields>({
            ...(dropped as Resource),
            name: 'fc-tags-colour',
            fields: { ...(dropped.fields as Fields), colour: field.string() },
          }),
        ),
      ).toEqual(['column colour allows null, the field is required']);
      await dropFieldColumn(qi(), 'fc_tags', 'colour');
      expect(afterDrop).toEqual(await freshShape(dropped));
    });

    it('undoes the drop of a ruled field with a default over rows: the column is back with its CHECK, as the previous build declares it', async () => {
      const graded = defineResource<Fields>({
        ...(dropped as Resource),
        name: 'fc-tags-graded',
        fields: { ...(dropped.fields as Fields), grade: field.integer({ minimum: 1, maximum: 5, default: 3 }) },
      });
      const grade = (c: Parameters<Parameters<typeof addFieldColumns>[2]>[0]) =>
        c.integer('grade', { minimum: 1, maximum: 5, default: 3 });
      await reset();
      await createFresh(qi(), dropped);
      const q = (name: string) => qi().quoteIdentifier(name);
      const now = new Date().toISOString().replace('T', ' ').slice(0, 23);
      await qi().sequelize.query(
        `INSERT INTO ${q('fc_tags')} (id, owner_id, title, created_at, updated_at) VALUES ('t1', 'o1', 'kept', '${now}', '${now}')`,
      );
      await addFieldColumns(qi(), 'fc_tags', grade);
      expect(await tableDrift(qi(), graded)).toEqual([]);
      await dropFieldColumn(qi(), 'fc_tags', 'grade');
      await restoreFieldColumns(qi(), 'fc_tags', grade);
      expect(await tableDrift(qi(), graded)).toEqual([]);
      await expect(qi().sequelize.query(`UPDATE ${q('fc_tags')} SET ${q('grade')} = 9`)).rejects.toThrow();
      await dropFieldColumn(qi(), 'fc_tags', 'grade');
    });

    it('makes a field optional and required again over rows, keeping collation, keys and foreign key; refuses required while a row lacks a value', async () => {
      await reset();
      await createFresh(qi(), before);
      const q = (name: string) => qi().quoteIdentifier(name);
      const now = new Date().toISOString().replace('T', ' ').slice(0, 23);
      await qi().sequelize.query(
        `INSERT INTO ${q('fc_notes')} (id, owner_id, title, created_at, updated_at) VALUES ('n1', 'o1', 'note', '${now}', '${now}')`,
      );
      await qi().sequelize.query(
        `INSERT INTO ${q('fc_tags')} (id, owner_id, name, note, created_at, updated_at) VALUES ('t1', 'o1', 'Dup', 'n1', '${now}', '${now}')`,
      );
      const relaxedName = defineResource<Fields>({
        ...(before as Resource),
        name: 'fc-tags-relaxed',
        fields: {
          ...(before.fields as Fields),
          name: field.string({ optional: true }),
          note: field.reference(() => parent, { optional: true, onDelete: 'cascade' }),
        },
      });
      const original = sorted(await describeTableShape(qi(), 'fc_tags'));
      await setFieldRequired(qi(), 'fc_tags', 'name', false);
      await setFieldRequired(qi(), 'fc_tags', 'note', false);
      await setFieldRequired(qi(), 'fc_tags', 'note', false); // again: nothing to do
      expect(await tableDrift(qi(), relaxedName)).toEqual([]);
      await setFieldRequired(qi(), 'fc_tags', 'name', true);
      await setFieldRequired(qi(), 'fc_tags', 'note', true);
      expect(sorted(await describeTableShape(qi(), 'fc_tags'))).toEqual(original);
      // A row without a value: required is refused, naming the table, the column and the count; ifPossible leaves it optional.
      await setFieldRequired(qi(), 'fc_tags', 'rank', true).then(
        () => Promise.reject(new Error('expected a refusal')),
        (error: Error) =>
          expect(error.message).toBe(
            'cannot make fc_tags.rank required: 1 rows hold no value for it; give them one (a migration of your own, or by hand), then run the migrations again',
          ),
      );
      await setFieldRequired(qi(), 'fc_tags', 'rank', true, { ifPossible: true });
      expect(sorted(await describeTableShape(qi(), 'fc_tags'))).toEqual(original);
    });

    it('names each difference between a drifted table and its declaration', async () => {
      await reset();
      await createFresh(qi(), before);
      const drift = await tableDrift(qi(), renamed);
      expect(drift).toEqual(
        expect.arrayContaining([
          'column title is missing',
          'column parent is missing',
          'column name is not in the declaration',
          'the unique key (owner_id, parent, title) is missing',
          'column parent has no foreign key to fc_notes',
          'column note has a foreign key to fc_notes the declaration does not have',
        ]),
      );
      expect(await tableDrift(qi(), { ...before, table: 'fc_nothing' } as Resource)).toEqual([
        'table fc_nothing does not exist',
      ]);
      const required = defineResource<Fields>({
        ...(before as Resource),
        name: 'fc-tags-required',
        fields: { ...(before.fields as Fields), rank: field.integer(), label: field.string({ optional: true }) },
      });
      expect(await tableDrift(qi(), required)).toEqual(
        expect.arrayContaining([
          'column rank allows null, the field is required',
          'column label_folded is not in the declaration',
        ]),
      );
    });
  });
}
