import mongoose from 'mongoose';
import { isId, newId } from '../../src/stores/ids';
import { refuseMultipleCascadePaths } from '../../src/stores/kit/cascade-paths';
import { defineStore } from '../../src/stores/kit/definition';
import { columnOf, field, foldedColumnOf, foldedNameOf, type Fields, type OnDelete } from '../../src/stores/kit/fields';
import { searchColumnOf, searchNameOf } from '../../src/stores/kit/shadows';
import { defineResource, referrersOf, type Resource } from '../../src/stores/kit/resource';
import { ownerScope } from '../../src/stores/kit/owner-scope';
import { inDependencyOrder, migrationsOf, OpenedStores, type AnyStoreDefinition } from '../../src/stores/kit/registry';
import { findMissingIndexes } from '../../src/stores/mongo/index-check';
import { ownedRecordSchema } from '../../src/stores/mongo/record-schema';
import { registeredStores } from '../support/registered-stores';
import { Sequelize } from 'sequelize';
import { createRecordTable } from '../../src/stores/sql/migrations/record-table';
import { resourceStore } from '../../src/stores/kit/resource-definition';

// The engine-independent parts of the store kit. The engines themselves are covered by the contract suites.

const migration = (name: string) => ({ name, up: async () => undefined, down: async () => undefined });
const store = (name: string, names: string[]) =>
  defineStore<{ name: string }>({
    name,
    migrations: names.map(migration),
    relational: () => ({ name }),
    mongodb: () => ({ name }),
  });

describe('record ids', () => {
  it('are UUIDv7 strings, strictly increasing within a process', () => {
    const ids = Array.from({ length: 1_000 }, newId);
    expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(
      true,
    );
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('tells a well-formed id from anything else', () => {
    expect(isId(newId())).toBe(true);
    for (const bad of ['', '42', 'not-a-uuid', `${newId()}x`, ' '.repeat(36), 42, null]) expect(isId(bad)).toBe(false);
  });
});

describe('shadow columns', () => {
  it('are the columns of the shadows the stores write: the migrations and the stores name them alike', () => {
    for (const name of ['title', 'dueAt', 'externalRef']) {
      expect(foldedColumnOf(columnOf(name))).toBe(columnOf(foldedNameOf(name)));
      expect(searchColumnOf(columnOf(name))).toBe(columnOf(searchNameOf(name)));
    }
  });
});

describe('owner scope', () => {
  it('limits users to their own records and lets admins see all', () => {
    expect(ownerScope({ id: 'u1', role: 'user' })).toEqual({ ownerId: 'u1' });
    expect(ownerScope({ id: 'u2', role: 'admin' })).toEqual({});
  });
});

describe('store registry', () => {
  it('orders migrations store by store and refuses a name used twice', () => {
    expect(migrationsOf([store('a', ['a-1', 'a-2']), store('b', ['b-1'])]).map((m) => m.name)).toEqual([
      'a-1',
      'a-2',
      'b-1',
    ]);
    expect(() => migrationsOf([store('a', ['x-1']), store('b', ['x-1'])])).toThrow(
      /migration 'x-1' of store 'b' has the same name as one of store 'a'/,
    );
  });

  it('opens each store once and refuses one that was not registered', () => {
    const a = store('a', []);
    const opened = new OpenedStores([a, a], (definition) => definition.relational({} as never));
    expect(opened.get(a)).toEqual({ name: 'a' });
    expect(() => opened.get(store('b', []))).toThrow(/store 'b' is not registered/);
    expect(() => new OpenedStores([store('c', []), store('c', [])], () => ({}))).toThrow(
      /two different stores are named 'c'/,
    );
  });

  it('holds the auth stores, whose migrations keep their historic names', () => {
    expect(registeredStores.map((definition) => definition.name)).toEqual(
      expect.arrayContaining(['users', 'refresh-tokens']),
    );
    const names = migrationsOf(registeredStores).map((m) => m.name);
    expect(names[0]).toBe('0001-create-users');
    expect(names).toEqual(
      expect.arrayContaining([
        '0002-create-refresh-tokens',
        '0003-refresh-token-families',
        '0004-user-session-version',
      ]),
    );
  });
});

describe('MongoDB index check', () => {
  it('asks mongoose for the diff (diffIndexes) and reports what each model must still create', async () => {
    const models = {
      Note: {
        modelName: 'Note',
        diffIndexes: async () => ({ toCreate: [{ ownerId: 1, createdAt: -1 }], toDrop: ['stale_1'] }),
      },
      User: { modelName: 'User', diffIndexes: async () => ({ toCreate: [], toDrop: [] }) },
    };
    expect(await findMissingIndexes({ models } as never)).toEqual([
      { model: 'Note', index: { ownerId: 1, createdAt: -1 } },
    ]);
  });

  it('the owned-record schema declares the owner index', () => {
    const schema = ownedRecordSchema(mongoose.Schema, { title: String });
    expect(schema.indexes().map(([key]) => key)).toEqual(
      expect.arrayContaining([{ ownerId: 1, createdAt: -1, _id: -1 }]),
    );
  });
});

describe('record tables', () => {
  it("index the owner's list in its order, tiebreak included: (owner_id, created_at, id)", async () => {
    const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
    try {
      const queryInterface = sequelize.getQueryInterface();
      await createRecordTable(queryInterface, 'probe_records', {});
      const indexes = (await queryInterface.showIndex('probe_records')) as {
        name: string;
        fields: { attribute: string }[];
      }[];
      expect(
        indexes.find((index) => index.name === 'probe_records_owner_created')?.fields.map((field) => field.attribute),
      ).toEqual(['owner_id', 'created_at', 'id']);
    } finally {
      await sequelize.close();
    }
  });
});

describe('store dependencies', () => {
  const store = (name: string, dependsOn: AnyStoreDefinition[] = []) => ({
    name,
    migrations: [{ name: `${name}-0001`, up: async () => undefined, down: async () => undefined }],
    dependsOn,
    relational: () => ({}),
    mongodb: () => ({}),
  });

  it('migrates a store after the stores it references, whatever the registration order', () => {
    const notes = store('notes');
    const tags = store('tags', [notes]);
    const marks = store('marks', [tags]);
    expect(inDependencyOrder([marks, notes]).map((definition) => definition.name)).toEqual(['notes', 'tags', 'marks']);
    expect(migrationsOf([marks]).map((migration) => migration.name)).toEqual(['notes-0001', 'tags-0001', 'marks-0001']);
  });

  it('refuses a cycle, naming it', () => {
    const a = store('a');
    const b = store('b', [a]);
    (a as { dependsOn: AnyStoreDefinition[] }).dependsOn = [b];
    expect(() => inDependencyOrder([a])).toThrow(/stores depend on each other in a cycle: a → b → a/);
  });
});

describe('cascade paths (SQL Server refuses two from one table, Msg 1785; the kit does on every engine)', () => {
  let serial = 0;
  /** A resource named `<name>-<n>` (declarations are process-wide), pointing at `references` with their rules. */
  const declare = (name: string, references: Record<string, [Resource, OnDelete]> = {}) => {
    const fields: Fields = { title: field.string() };
    for (const [key, [target, onDelete]] of Object.entries(references))
      fields[key] = field.reference(() => target, { onDelete });
    const unique = `${name}-${++serial}`;
    return defineResource({
      name: unique,
      table: unique.replace(/-/g, '_'),
      modelName: `Cascade${serial}`,
      fields,
      migrations: [],
    });
  };

  it('refuses two cascading references from one resource to another, naming both paths', () => {
    const accounts = declare('accounts');
    expect(() => declare('transfers', { from: [accounts, 'cascade'], to: [accounts, 'cascade'] })).toThrow(
      new RegExp(
        `^resource 'transfers-\\d+': deleting a '${accounts.name}' record would reach it by 2 cascade paths, transfers-\\d+\\.from → ${accounts.name} and transfers-\\d+\\.to → ${accounts.name}; SQL Server refuses .*Msg 1785.*onDelete 'restrict'`,
      ),
    );
    expect(() => declare('transfers', { from: [accounts, 'cascade'], to: [accounts, 'restrict'] })).not.toThrow();
    expect(() => declare('transfers', { from: [accounts, 'restrict'], to: [accounts, 'restrict'] })).not.toThrow();
  });

  it('refuses a diamond (two resources cascading from one, a fourth cascading from both), naming both paths', () => {
    const notes = declare('notes');
    const tags = declare('tags', { note: [notes, 'cascade'] });
    const pins = declare('pins', { note: [notes, 'cascade'] });
    expect(() => declare('marks', { tag: [tags, 'cascade'], pin: [pins, 'cascade'] })).toThrow(
      `deleting a '${notes.name}' record would reach it by 2 cascade paths, ${`marks-${serial + 1}`}.tag → ${tags.name}.note → ${notes.name} and marks-${serial + 1}.pin → ${pins.name}.note → ${notes.name}`,
    );
    const marks = declare('marks', { tag: [tags, 'cascade'], pin: [pins, 'restrict'] });
    expect(referrersOf(pins).map((referrer) => referrer.resource)).toEqual([marks]); // the refused one recorded nothing
  });

  it('refuses a shortcut beside a cascade chain, and accepts a chain, a tree and restricting references anywhere', () => {
    const notes = declare('notes');
    const tags = declare('tags', { note: [notes, 'cascade'] });
    expect(() => declare('marks', { tag: [tags, 'cascade'], note: [notes, 'cascade'] })).toThrow(
      /2 cascade paths, marks-\d+\.tag → tags-\d+\.note → notes-\d+ and marks-\d+\.note → notes-\d+;/,
    );
    expect(() => declare('marks', { tag: [tags, 'cascade'], note: [notes, 'restrict'] })).not.toThrow();
    const pins = declare('pins', { note: [notes, 'cascade'] });
    expect(() => declare('marks', { tag: [tags, 'cascade'] })).not.toThrow();
    expect(() => declare('marks', { pin: [pins, 'cascade'], tag: [tags, 'restrict'] })).not.toThrow();
  });

  it('refuses a cycle of cascading references', () => {
    const a: { name: string; table: string; modelName: string; fields: Fields } = {
      name: 'a',
      table: 'a',
      modelName: 'A',
      fields: {},
    };
    const b = {
      name: 'b',
      table: 'b',
      modelName: 'B',
      fields: { up: field.reference(() => a, { onDelete: 'cascade' }) },
    };
    a.fields = { down: field.reference(() => b, { onDelete: 'cascade' }) };
    expect(() => refuseMultipleCascadePaths(a)).toThrow(/cascading references form a cycle: a → b → a .*Msg 1785/);
  });
});

describe('defaults, read-only fields, search and actions are checked when declared', () => {
  const declare =
    (fields: Fields, extra: Record<string, unknown> = {}) =>
    () =>
      defineResource({ name: 'checked', table: 'checked', modelName: 'Checked', fields, migrations: [], ...extra });

  it('refuses a default of another kind, or a read-only field nobody could ever fill', () => {
    expect(declare({ n: field.integer({ default: 1.5 }) })).toThrow(
      "resource 'checked': the default of 'n' is not an integer",
    );
    expect(declare({ s: field.string({ default: '' }) })).toThrow(/the default of 's' is not a string/);
    expect(declare({ at: field.datetime({ readOnly: true }) })).toThrow(
      /'at' is read-only, so nobody can give it on create: make it optional or give it a default/,
    );
    expect(
      declare({
        at: field.datetime({ readOnly: true, optional: true }),
        on: field.boolean({ readOnly: true, default: false }),
      }),
    ).not.toThrow();
  });

  it('searches string and text fields only', () => {
    expect(declare({ n: field.integer() }, { search: ['n'] })).toThrow(
      "resource 'checked': search 'n' is not a string or text field",
    );
    expect(declare({ t: field.text() }, { search: ['t'] })).not.toThrow();
  });

  it("refuses an action that sets nothing, an unknown field, 'now' on a non-datetime, null on a required field, or an unless it cannot read", () => {
    const fields = {
      title: field.string(),
      done: field.boolean({ default: false }),
      maybe: field.boolean({ optional: true }),
      at: field.datetime({ optional: true, readOnly: true }),
    };
    const action = (definition: Record<string, unknown>) => declare(fields, { actions: { 'mark-done': definition } });
    expect(action({ set: {} })).toThrow("action 'mark-done': sets no field");
    expect(action({ set: { nope: 1 } })).toThrow("action 'mark-done': sets 'nope', which is not one of the fields");
    expect(action({ set: { done: 'now' } })).toThrow("action 'mark-done': done: 'now' is for datetime fields");
    expect(action({ set: { title: null } })).toThrow('title: null, but the field is not optional');
    expect(action({ set: { done: 'yes' } })).toThrow('done: "yes" is not a boolean');
    expect(action({ set: { at: 'now' }, unless: 'maybe' })).toThrow(/unless 'maybe' is an optional boolean/);
    expect(action({ set: { at: 'now' }, access: 'anyone' })).toThrow(/access is 'owner-or-admin' or 'admin'/);
    expect(declare(fields, { actions: { Archive: { set: { at: 'now' } } } })).toThrow(
      /action 'Archive': names are lower-case words/,
    );
    expect(action({ set: { at: 'now', done: true }, unless: 'done' })).not.toThrow();
  });
});

describe('a catalogue and what it points at', () => {
  it('refuses at start-up a catalogue pointing at records only their owners read, and takes one pointing at a shared resource', () => {
    const own = defineResource({
      name: 'kit-own-tags',
      table: 'kit_own_tags',
      modelName: 'KitOwnTag',
      fields: { name: field.string() },
      migrations: [],
    });
    const shared = defineResource({
      name: 'kit-shared-tags',
      table: 'kit_shared_tags',
      modelName: 'KitSharedTag',
      fields: { name: field.string() },
      access: { read: 'authenticated', write: 'owner' },
      migrations: [],
    });
    const catalogue = (target: Resource) =>
      defineResource({
        name: `kit-cat-${target.name}`,
        table: `kit_cat_${target.table}`,
        modelName: `KitCat${target.modelName}`,
        fields: { tag: field.reference(() => target) },
        access: { read: 'authenticated', write: 'admin' },
        migrations: [],
      });
    expect(() => resourceStore(catalogue(own as unknown as Resource))).toThrow(
      "resource 'kit-cat-kit-own-tags' is a catalogue (its records are nobody's): its reference 'tag' points at 'kit-own-tags', whose records only their owners read",
    );
    expect(() => resourceStore(catalogue(shared as unknown as Resource))).not.toThrow();
  });
});
