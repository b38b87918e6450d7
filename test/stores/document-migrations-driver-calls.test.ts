import type { Connection } from 'mongoose';
import { DestructiveMigrationError } from '../../src/stores/errors';
import { LOCK_COLLECTION, MigrationLeaseLostError } from '../../src/stores/mongo/document-migration-lock';
import {
  applyDocumentChanges,
  FILL_BATCH,
  IrreversibleDocumentChangeError,
  revertLastDocumentChange,
} from '../../src/stores/mongo/document-migrations';
import type { SqlMigration } from '../../src/stores/sql/migrations/migration';

// What MongoDB is asked when a migration renames or drops a field (no server runs here): under the
// migration lock, the indexes on the old fields dropped, the documents' fields moved with their case-folded
// shadows, each change recorded once in schema_migrations and not applied again; "already done" taken as
// done; a change that would destroy data refused until allowed; a rename reverted by `down`.

const noop = async () => undefined;
const renameName: SqlMigration = {
  name: 'tags-0002-rename-name-to-label',
  up: noop,
  down: noop,
  documents: { collection: 'tags', rename: { name: 'label' } },
};
const dropColour: SqlMigration = {
  name: 'tags-0003-drop-colour',
  up: noop,
  down: noop,
  documents: { collection: 'tags', unset: ['colour'] },
};
const relationalOnly: SqlMigration = { name: 'tags-0001-create-tags', up: noop, down: noop };

interface FakeOptions {
  collections?: string[];
  /** Documents findOne answers (a field still holding values). */
  holding?: boolean;
  /** Errors the next calls of these methods throw, in turn. */
  failures?: Partial<Record<'dropIndex' | 'drop' | 'recordInsert' | 'lockTake', { code: number }[]>>;
  /** How many claims of the lock find another instance holding it (its lease live, by the server's clock). */
  held?: number;
  /** The renewals (fences included) that find the lease no longer this instance's, by their number from 1. */
  lost?: number[];
  /** What an aggregation (a catalogue's clash count) answers. */
  clashes?: unknown[];
}

function fakeConnection(recorded: string[], options: FakeOptions = {}) {
  const { collections = ['tags'], holding = false, failures = {}, clashes = [], lost = [] } = options;
  let held = options.held ?? 0;
  const calls: unknown[][] = [];
  /** The lock's renewals: each fence before a step, and the timer's (none in these short runs). */
  const renewals: unknown[] = [];
  const failNext = (method: keyof NonNullable<FakeOptions['failures']>) => {
    const failure = failures[method]?.shift();
    if (failure) throw Object.assign(new Error(`${method} failed`), { name: 'MongoServerError', ...failure });
  };
  const collection = (name: string) => ({
    indexes: async () => [
      { name: '_id_', key: { _id: 1 } },
      { name: 'ownerId_1_nameFolded_1', key: { ownerId: 1, nameFolded: 1 } },
      { name: 'ownerId_1_labelFolded_1', key: { ownerId: 1, labelFolded: 1 } },
      { name: 'ownerId_1_colour_1__id_1', key: { ownerId: 1, colour: 1, _id: 1 } },
      { name: 'ownerId_1_createdAt_1', key: { ownerId: 1, createdAt: 1 } },
    ],
    dropIndex: async (index: string) => {
      calls.push([name, 'dropIndex', index]);
      failNext('dropIndex');
    },
    updateMany: async (filter: unknown, update: unknown) => void calls.push([name, 'updateMany', filter, update]),
    find: (filter: unknown) => ({
      toArray: async () => (calls.push([name, 'find', filter]), recorded.map((id) => ({ _id: id }))),
    }),
    findOne: async (filter: unknown) => (calls.push([name, 'findOne', filter]), holding ? { _id: 'some' } : null),
    insertOne: async (document: { _id: string }) => {
      calls.push([name, 'insertOne', document._id]);
      failNext('recordInsert');
    },
    findOneAndUpdate: async (filter: { _id: string }, update: { $set: { owner: { $cond: unknown[] } } }[]) => {
      calls.push([name, 'take', filter._id]);
      failNext('lockTake');
      const claimant = update[0]!.$set.owner.$cond[1];
      if (held > 0) return (held--, { _id: filter._id, owner: 'another instance' });
      return { _id: filter._id, owner: claimant };
    },
    updateOne: async (filter: unknown) => {
      renewals.push(filter);
      return { matchedCount: lost.includes(renewals.length) ? 0 : 1 };
    },
    aggregate: (pipeline: unknown) => ({ toArray: async () => (calls.push([name, 'aggregate', pipeline]), clashes) }),
    collectionName: name,
    deleteOne: async (filter: { _id: string }) => void calls.push([name, 'deleteOne', filter._id]),
    drop: async () => {
      calls.push([name, 'drop']);
      failNext('drop');
    },
  });
  const db = {
    collection,
    listCollections: (filter: { name: string }) => ({
      toArray: async () => (collections.includes(filter.name) ? [filter] : []),
    }),
  };
  return { connection: { db } as unknown as Connection, calls, renewals };
}

const LOCK_TAKEN = [LOCK_COLLECTION, 'take', 'migrations'];
const LOCK_RELEASED = [LOCK_COLLECTION, 'deleteOne', 'migrations'];

describe('MongoDB document changes (a field renamed or dropped)', () => {
  it("under the lock: drops the old fields' indexes, moves the fields with their shadows, records each change, then releases it", async () => {
    const { connection, calls } = fakeConnection([]);
    expect(await applyDocumentChanges(connection, [relationalOnly, renameName, dropColour])).toEqual([
      renameName.name,
      dropColour.name,
    ]);
    expect(calls).toEqual([
      LOCK_TAKEN,
      ['schema_migrations', 'find', { _id: { $in: [renameName.name, dropColour.name] } }],
      ['tags', 'findOne', { colour: { $exists: true } }], // does the drop destroy values here? none
      ['tags', 'dropIndex', 'ownerId_1_nameFolded_1'],
      [
        'tags',
        'updateMany',
        { $or: [{ name: { $exists: true } }, { nameFolded: { $exists: true } }, { nameSearch: { $exists: true } }] },
        { $rename: { name: 'label', nameFolded: 'labelFolded', nameSearch: 'labelSearch' } },
      ],
      ['schema_migrations', 'insertOne', renameName.name],
      ['tags', 'dropIndex', 'ownerId_1_colour_1__id_1'],
      [
        'tags',
        'updateMany',
        {
          $or: [
            { colour: { $exists: true } },
            { colourFolded: { $exists: true } },
            { colourSearch: { $exists: true } },
          ],
        },
        { $unset: { colour: '', colourFolded: '', colourSearch: '' } },
      ],
      ['schema_migrations', 'insertOne', dropColour.name],
      LOCK_RELEASED,
    ]);
  });

  it('drops the collection of a removed module (empty here: nothing destroyed)', async () => {
    const removeTags: SqlMigration = {
      name: 'tags-0004-remove-module',
      up: noop,
      down: noop,
      documents: { collection: 'tags', drop: true },
    };
    const { connection, calls } = fakeConnection([]);
    expect(await applyDocumentChanges(connection, [removeTags])).toEqual([removeTags.name]);
    expect(calls.slice(2)).toEqual([
      ['tags', 'findOne', {}],
      ['tags', 'drop'],
      ['schema_migrations', 'insertOne', removeTags.name],
      LOCK_RELEASED,
    ]);
  });

  it('applies nothing twice, and nothing on a database without the collection yet (it is only recorded)', async () => {
    const done = fakeConnection([renameName.name, dropColour.name]);
    expect(await applyDocumentChanges(done.connection, [renameName, dropColour])).toEqual([]);
    expect(done.calls.map((call) => call[1])).toEqual(['take', 'find', 'deleteOne']);
    const fresh = fakeConnection([], { collections: [] });
    expect(await applyDocumentChanges(fresh.connection, [renameName])).toEqual([renameName.name]);
    expect(fresh.calls.map((call) => call[1])).toEqual(['take', 'find', 'insertOne', 'deleteOne']);
  });

  it('waits while another instance holds the lock, then finds what it applied; claims it only when free by the server clock', async () => {
    const waiting = fakeConnection([renameName.name], { held: 1 });
    expect(await applyDocumentChanges(waiting.connection, [renameName])).toEqual([]);
    expect(waiting.calls.slice(0, 3)).toEqual([
      LOCK_TAKEN,
      LOCK_TAKEN,
      ['schema_migrations', 'find', expect.anything()],
    ]);
  });

  it('claims and renews the lease by the server clock ($$NOW, $currentDate), never a replica clock', async () => {
    const { connection, renewals } = fakeConnection([]);
    let claim: unknown;
    const db = connection.db!;
    const locks = db.collection(LOCK_COLLECTION);
    const take = locks.findOneAndUpdate.bind(locks);
    jest.spyOn(locks, 'findOneAndUpdate').mockImplementation(((filter: never, update: never, options: never) => {
      claim = { filter, update, options };
      return take(filter, update, options);
    }) as never);
    jest
      .spyOn(db, 'collection')
      .mockImplementation(((name: string) =>
        name === LOCK_COLLECTION ? locks : fakeConnection([]).connection.db!.collection(name)) as never);
    await applyDocumentChanges(connection, [renameName], { lock: { waitMs: 1_000, leaseMs: 30_000 } });
    // A lock a release before `at` wrote (owner, expiresAt) is judged by its expiresAt.
    const claimed = { $ifNull: ['$at', { $subtract: ['$expiresAt', 30_000] }] };
    const free = {
      $or: [{ $eq: [{ $type: '$owner' }, 'missing'] }, { $lt: [claimed, { $subtract: ['$$NOW', 30_000] }] }],
    };
    expect(claim).toEqual({
      filter: { _id: 'migrations' },
      update: [
        {
          $set: {
            owner: { $cond: [free, expect.any(String), '$owner'] },
            at: { $cond: [free, '$$NOW', '$at'] },
            expiresAt: { $cond: [free, { $add: ['$$NOW', 30_000] }, '$expiresAt'] },
          },
        },
      ],
      options: { upsert: true, returnDocument: 'after' },
    });
    expect(renewals[0]).toEqual({
      _id: 'migrations',
      owner: expect.any(String),
      $expr: { $gte: ['$at', { $subtract: ['$$NOW', 30_000] }] },
    });
  });

  it('stops before its next step once its lease is lost (a stall past it), applying nothing after', async () => {
    const { connection, calls } = fakeConnection([], { lost: [3] });
    await expect(applyDocumentChanges(connection, [renameName, dropColour])).rejects.toThrow(MigrationLeaseLostError);
    // The fences before the rename and its record held; the one before the drop did not.
    expect(calls.filter((call) => call[1] === 'insertOne').map((call) => call[2])).toEqual([renameName.name]);
    expect(calls.some((call) => call[1] === 'updateMany' && JSON.stringify(call[3]).includes('$unset'))).toBe(false);
  });

  it('gives up after the wait, naming the lock', async () => {
    const held = fakeConnection([], { held: 20 });
    await expect(
      applyDocumentChanges(held.connection, [renameName], { lock: { waitMs: 300, leaseMs: 60_000 } }),
    ).rejects.toThrow(/held the MongoDB migration lock/);
    expect(held.calls.some((call) => call[0] === 'tags')).toBe(false);
  });

  it('treats "already done" as done: an index or a collection already dropped, a change already recorded', async () => {
    const { connection, calls } = fakeConnection([], {
      failures: { dropIndex: [{ code: 27 }], recordInsert: [{ code: 11000 }] },
    });
    expect(await applyDocumentChanges(connection, [renameName])).toEqual([renameName.name]);
    expect(calls.at(-1)).toEqual(LOCK_RELEASED);
    const removeTags: SqlMigration = {
      name: 'tags-0004-remove-module',
      up: noop,
      down: noop,
      documents: { collection: 'tags', drop: true },
    };
    const dropped = fakeConnection([], { failures: { drop: [{ code: 26 }] } });
    expect(await applyDocumentChanges(dropped.connection, [removeTags])).toEqual([removeTags.name]);
  });

  it('refuses a change that would destroy data (start-up), applying nothing, until allowed (db:migrate -- up --allow-destructive)', async () => {
    const refused = fakeConnection([], { holding: true });
    const error = await applyDocumentChanges(refused.connection, [renameName, dropColour]).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DestructiveMigrationError);
    expect((error as Error).message).toContain(`${dropColour.name} (destroys field tags.colour (values))`);
    expect((error as Error).message).toContain('npm run db:migrate -- up --allow-destructive');
    expect(refused.calls.filter((call) => call[1] === 'updateMany' || call[1] === 'dropIndex')).toEqual([]);
    expect(refused.calls.at(-1)).toEqual(LOCK_RELEASED);
    const allowed = fakeConnection([], { holding: true });
    expect(
      await applyDocumentChanges(allowed.connection, [renameName, dropColour], { allowDestructive: true }),
    ).toEqual([renameName.name, dropColour.name]);
  });
});

describe('MongoDB document changes reverted (db:migrate -- down)', () => {
  it("a rename goes back, with its shadows, the new names' indexes dropped, its record removed", async () => {
    const { connection, calls } = fakeConnection([renameName.name]);
    expect(await revertLastDocumentChange(connection, [relationalOnly, renameName, dropColour])).toBe(renameName.name);
    expect(calls).toEqual([
      LOCK_TAKEN,
      ['schema_migrations', 'find', { _id: { $in: [renameName.name, dropColour.name] } }],
      ['tags', 'dropIndex', 'ownerId_1_labelFolded_1'],
      [
        'tags',
        'updateMany',
        { $or: [{ label: { $exists: true } }, { labelFolded: { $exists: true } }, { labelSearch: { $exists: true } }] },
        { $rename: { label: 'name', labelFolded: 'nameFolded', labelSearch: 'nameSearch' } },
      ],
      ['schema_migrations', 'deleteOne', renameName.name],
      LOCK_RELEASED,
    ]);
  });

  it('refuses clearly where the data is gone (a removed field, a dropped collection), changing nothing', async () => {
    const { connection, calls } = fakeConnection([renameName.name, dropColour.name]);
    await expect(revertLastDocumentChange(connection, [renameName, dropColour])).rejects.toThrow(
      IrreversibleDocumentChangeError,
    );
    await expect(revertLastDocumentChange(connection, [renameName, dropColour])).rejects.toThrow(
      `cannot revert ${dropColour.name} on MongoDB: it removed tags.colour, and their values are gone; restore them from a backup`,
    );
    expect(calls.filter((call) => call[0] === 'tags' || call[1] === 'deleteOne').map((call) => call[0])).toEqual([
      LOCK_COLLECTION,
      LOCK_COLLECTION,
    ]);
    expect(await revertLastDocumentChange(fakeConnection([]).connection, [renameName])).toBeUndefined();
  });
});

describe('MongoDB document fills (a field added with a default, a field made searchable)', () => {
  /** A collection whose finds answer these batches in turn, recording every call. */
  function fillingConnection(batches: Record<string, unknown>[][]) {
    const calls: unknown[][] = [];
    const notes = {
      indexes: async () => [],
      updateMany: async (filter: unknown, update: unknown) => void calls.push(['updateMany', filter, update]),
      find: (filter: unknown, options: unknown) => {
        const call: unknown[] = ['find', filter, options];
        calls.push(call);
        const cursor = {
          sort: (order: unknown) => (call.push({ sort: order }), cursor),
          limit: (n: number) => (call.push({ limit: n }), cursor),
          toArray: async () => batches.shift() ?? [],
        };
        return cursor;
      },
      bulkWrite: async (operations: unknown, options: unknown) => void calls.push(['bulkWrite', operations, options]),
    };
    const record = {
      find: () => ({ toArray: async () => [] }),
      insertOne: async () => undefined,
      deleteOne: async () => undefined,
      // The lock: claimed (the claimant is the owner after), renewed at each fence.
      findOneAndUpdate: async (_filter: unknown, update: { $set: { owner: { $cond: unknown[] } } }[]) => ({
        owner: update[0]!.$set.owner.$cond[1],
      }),
      updateOne: async () => ({ matchedCount: 1 }),
    };
    const db = {
      collection: (name: string) => (name === 'notes' ? notes : record),
      listCollections: (filter: unknown) => ({ toArray: async () => [filter] }),
    };
    return { connection: { db } as unknown as Connection, calls };
  }

  it("gives the documents without a new field its default and the default's shadows, as a column DEFAULT fills the rows", async () => {
    const addStatus: SqlMigration = {
      name: 'notes-0002-add-status',
      up: noop,
      down: noop,
      documents: {
        collection: 'notes',
        fill: [{ field: 'status', default: 'Élan', caseInsensitive: true, search: true }],
      },
    };
    const { connection, calls } = fillingConnection([]);
    await applyDocumentChanges(connection, [addStatus]);
    expect(calls[0]).toEqual([
      'updateMany',
      { status: { $exists: false } },
      { $set: { status: 'Élan', statusFolded: 'élan', statusSearch: 'elan' } },
    ]);
    const addPinned: SqlMigration = {
      name: 'notes-0003-add-pinned',
      up: noop,
      down: noop,
      documents: { collection: 'notes', fill: [{ field: 'pinned', default: false }] },
    };
    const boolean = fillingConnection([]);
    await applyDocumentChanges(boolean.connection, [addPinned]);
    expect(boolean.calls).toEqual([['updateMany', { pinned: { $exists: false } }, { $set: { pinned: false } }]]);
  });

  it("computes a searched field's shadow in _id order, batch after batch, each update guarded by the text it folded", async () => {
    const searchTitle: SqlMigration = {
      name: 'notes-0004-search-title',
      up: noop,
      down: noop,
      documents: { collection: 'notes', fill: [{ field: 'title', search: true }] },
    };
    const full = Array.from({ length: FILL_BATCH }, (_, i) => ({
      _id: `id-${String(i).padStart(4, '0')}`,
      title: i === 0 ? 'École' : `Note ${i}`,
    }));
    const { connection, calls } = fillingConnection([full, [{ _id: 'id-9999', title: 'ÇA VA' }]]);
    await applyDocumentChanges(connection, [searchTitle]);
    expect(calls.map((call) => call[0])).toEqual(['find', 'bulkWrite', 'find', 'bulkWrite']);
    expect(calls[0]).toEqual([
      'find',
      { title: { $type: 'string' }, titleSearch: null },
      { projection: { title: 1 } },
      { sort: { _id: 1 } },
      { limit: FILL_BATCH },
    ]);
    const firstWrites = calls[1]![1] as { updateOne: unknown }[];
    expect(firstWrites).toHaveLength(FILL_BATCH);
    expect(firstWrites[0]).toEqual({
      updateOne: {
        filter: { _id: 'id-0000', title: 'École', titleSearch: null },
        update: { $set: { titleSearch: 'ecole' } },
      },
    });
    expect(calls[1]![2]).toEqual({ ordered: false });
    expect(calls[2]![1]).toEqual({
      title: { $type: 'string' },
      titleSearch: null,
      _id: { $gt: full[FILL_BATCH - 1]!._id },
    });
    expect(calls[3]![1]).toEqual([
      {
        updateOne: {
          filter: { _id: 'id-9999', title: 'ÇA VA', titleSearch: null },
          update: { $set: { titleSearch: 'ca va' } },
        },
      },
    ]);
  });

  it('reads once and writes nothing when every document has its shadow', async () => {
    const searchTitle: SqlMigration = {
      name: 'notes-0004-search-title',
      up: noop,
      down: noop,
      documents: { collection: 'notes', fill: [{ field: 'title', search: true }] },
    };
    const { connection, calls } = fillingConnection([]);
    await applyDocumentChanges(connection, [searchTitle]);
    expect(calls.map((call) => call[0])).toEqual(['find']);
  });

  it('makes a collection a catalogue: each unique key checked for values two owners hold, then every document the catalogue’s', async () => {
    const catalogue: SqlMigration = {
      name: 'tags-0005-make-catalogue',
      up: noop,
      down: noop,
      documents: { collection: 'tags', catalogue: { unique: [['name']] } },
    };
    const { connection, calls } = fakeConnection([]);
    expect(await applyDocumentChanges(connection, [catalogue])).toEqual([catalogue.name]);
    expect(calls.filter((call) => call[1] === 'aggregate' || call[1] === 'updateMany')).toEqual([
      [
        'tags',
        'aggregate',
        [
          { $match: { name: { $ne: null } } },
          { $group: { _id: { name: '$name' }, count: { $sum: 1 } } },
          { $match: { count: { $gt: 1 } } },
          { $limit: 1 },
        ],
      ],
      ['tags', 'updateMany', { ownerId: { $ne: 'catalogue' } }, { $set: { ownerId: 'catalogue' } }],
    ]);
    const clashing = fakeConnection([], { clashes: [{ _id: { name: 'Atlas' }, count: 2 }] });
    await expect(applyDocumentChanges(clashing.connection, [catalogue])).rejects.toThrow(
      'cannot make tags a catalogue: 2 documents of different owners share {"name":"Atlas"}',
    );
    expect(clashing.calls.some((call) => call[1] === 'updateMany')).toBe(false);
  });
});
