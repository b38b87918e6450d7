import type { Connection } from 'mongoose';
import { applyDocumentChanges, FILL_BATCH } from '../../src/stores/mongo/document-migrations';
import type { SqlMigration } from '../../src/stores/sql/migrations/migration';

// What MongoDB is asked when a migration renames or drops a field (no server runs here): the indexes on the
// old fields dropped, the documents' fields moved with their case-folded shadows, each change recorded once
// in schema_migrations and not applied again.

const noop = async () => undefined;
const renameName: SqlMigration = { name: 'tags-0002-rename-name-to-label', up: noop, down: noop, documents: { collection: 'tags', rename: { name: 'label' } } };
const dropColour: SqlMigration = { name: 'tags-0003-drop-colour', up: noop, down: noop, documents: { collection: 'tags', unset: ['colour'] } };
const relationalOnly: SqlMigration = { name: 'tags-0001-create-tags', up: noop, down: noop };

function fakeConnection(recorded: string[], collections = ['tags']) {
  const calls: unknown[][] = [];
  const collection = (name: string) => ({
    indexes: async () => [
      { name: '_id_', key: { _id: 1 } },
      { name: 'ownerId_1_nameFolded_1', key: { ownerId: 1, nameFolded: 1 } },
      { name: 'ownerId_1_colour_1__id_1', key: { ownerId: 1, colour: 1, _id: 1 } },
      { name: 'ownerId_1_createdAt_1', key: { ownerId: 1, createdAt: 1 } },
    ],
    dropIndex: async (index: string) => void calls.push([name, 'dropIndex', index]),
    updateMany: async (filter: unknown, update: unknown) => void calls.push([name, 'updateMany', filter, update]),
    find: (filter: unknown) => ({ toArray: async () => (calls.push([name, 'find', filter]), recorded.map((id) => ({ _id: id }))) }),
    insertOne: async (document: { _id: string }) => void calls.push([name, 'insertOne', document._id]),
    drop: async () => void calls.push([name, 'drop']),
  });
  const db = { collection, listCollections: (filter: { name: string }) => ({ toArray: async () => (collections.includes(filter.name) ? [filter] : []) }) };
  return { connection: { db } as unknown as Connection, calls };
}

describe('MongoDB document changes (a field renamed or dropped)', () => {
  it('drops the old fields\' indexes, moves the fields with their shadows, records each change', async () => {
    const { connection, calls } = fakeConnection([]);
    expect(await applyDocumentChanges(connection, [relationalOnly, renameName, dropColour])).toEqual([renameName.name, dropColour.name]);
    expect(calls).toEqual([
      ['schema_migrations', 'find', { _id: { $in: [renameName.name, dropColour.name] } }],
      ['tags', 'dropIndex', 'ownerId_1_nameFolded_1'],
      ['tags', 'updateMany', { $or: [{ name: { $exists: true } }, { nameFolded: { $exists: true } }, { nameSearch: { $exists: true } }] }, { $rename: { name: 'label', nameFolded: 'labelFolded', nameSearch: 'labelSearch' } }],
      ['schema_migrations', 'insertOne', renameName.name],
      ['tags', 'dropIndex', 'ownerId_1_colour_1__id_1'],
      ['tags', 'updateMany', { $or: [{ colour: { $exists: true } }, { colourFolded: { $exists: true } }, { colourSearch: { $exists: true } }] }, { $unset: { colour: '', colourFolded: '', colourSearch: '' } }],
      ['schema_migrations', 'insertOne', dropColour.name],
    ]);
  });

  it('drops the collection of a removed module', async () => {
    const removeTags: SqlMigration = { name: 'tags-0004-remove-module', up: noop, down: noop, documents: { collection: 'tags', drop: true } };
    const { connection, calls } = fakeConnection([]);
    expect(await applyDocumentChanges(connection, [removeTags])).toEqual([removeTags.name]);
    expect(calls.slice(1)).toEqual([['tags', 'drop'], ['schema_migrations', 'insertOne', removeTags.name]]);
  });

  it('applies nothing twice, and nothing on a database without the collection yet (it is only recorded)', async () => {
    const done = fakeConnection([renameName.name, dropColour.name]);
    expect(await applyDocumentChanges(done.connection, [renameName, dropColour])).toEqual([]);
    expect(done.calls.map((call) => call[1])).toEqual(['find']);
    const fresh = fakeConnection([], []);
    expect(await applyDocumentChanges(fresh.connection, [renameName])).toEqual([renameName.name]);
    expect(fresh.calls.map((call) => call[1])).toEqual(['find', 'insertOne']);
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
        const cursor = { sort: (order: unknown) => (call.push({ sort: order }), cursor), limit: (n: number) => (call.push({ limit: n }), cursor), toArray: async () => batches.shift() ?? [] };
        return cursor;
      },
      bulkWrite: async (operations: unknown, options: unknown) => void calls.push(['bulkWrite', operations, options]),
    };
    const record = { find: () => ({ toArray: async () => [] }), insertOne: async () => undefined };
    const db = { collection: (name: string) => (name === 'notes' ? notes : record), listCollections: (filter: unknown) => ({ toArray: async () => [filter] }) };
    return { connection: { db } as unknown as Connection, calls };
  }

  it('gives the documents without a new field its default and the default\'s shadows, as a column DEFAULT fills the rows', async () => {
    const addStatus: SqlMigration = { name: 'notes-0002-add-status', up: noop, down: noop, documents: { collection: 'notes', fill: [{ field: 'status', default: 'Élan', caseInsensitive: true, search: true }] } };
    const { connection, calls } = fillingConnection([]);
    await applyDocumentChanges(connection, [addStatus]);
    expect(calls[0]).toEqual(['updateMany', { status: { $exists: false } }, { $set: { status: 'Élan', statusFolded: 'élan', statusSearch: 'elan' } }]);
    const addPinned: SqlMigration = { name: 'notes-0003-add-pinned', up: noop, down: noop, documents: { collection: 'notes', fill: [{ field: 'pinned', default: false }] } };
    const boolean = fillingConnection([]);
    await applyDocumentChanges(boolean.connection, [addPinned]);
    expect(boolean.calls).toEqual([['updateMany', { pinned: { $exists: false } }, { $set: { pinned: false } }]]);
  });

  it('computes a searched field\'s shadow in _id order, batch after batch, each update guarded by the text it folded', async () => {
    const searchTitle: SqlMigration = { name: 'notes-0004-search-title', up: noop, down: noop, documents: { collection: 'notes', fill: [{ field: 'title', search: true }] } };
    const full = Array.from({ length: FILL_BATCH }, (_, i) => ({ _id: `id-${String(i).padStart(4, '0')}`, title: i === 0 ? 'École' : `Note ${i}` }));
    const { connection, calls } = fillingConnection([full, [{ _id: 'id-9999', title: 'ÇA VA' }]]);
    await applyDocumentChanges(connection, [searchTitle]);
    expect(calls.map((call) => call[0])).toEqual(['find', 'bulkWrite', 'find', 'bulkWrite']);
    expect(calls[0]).toEqual(['find', { title: { $type: 'string' }, titleSearch: null }, { projection: { title: 1 } }, { sort: { _id: 1 } }, { limit: FILL_BATCH }]);
    const firstWrites = calls[1]![1] as { updateOne: unknown }[];
    expect(firstWrites).toHaveLength(FILL_BATCH);
    expect(firstWrites[0]).toEqual({ updateOne: { filter: { _id: 'id-0000', title: 'École', titleSearch: null }, update: { $set: { titleSearch: 'ecole' } } } });
    expect(calls[1]![2]).toEqual({ ordered: false });
    expect(calls[2]![1]).toEqual({ title: { $type: 'string' }, titleSearch: null, _id: { $gt: full[FILL_BATCH - 1]!._id } });
    expect(calls[3]![1]).toEqual([{ updateOne: { filter: { _id: 'id-9999', title: 'ÇA VA', titleSearch: null }, update: { $set: { titleSearch: 'ca va' } } } }]);
  });

  it('reads once and writes nothing when every document has its shadow', async () => {
    const searchTitle: SqlMigration = { name: 'notes-0004-search-title', up: noop, down: noop, documents: { collection: 'notes', fill: [{ field: 'title', search: true }] } };
    const { connection, calls } = fillingConnection([]);
    await applyDocumentChanges(connection, [searchTitle]);
    expect(calls.map((call) => call[0])).toEqual(['find']);
  });
});
