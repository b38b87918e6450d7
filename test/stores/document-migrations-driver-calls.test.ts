import type { Connection } from 'mongoose';
import { applyDocumentChanges } from '../../src/stores/mongo/document-migrations';
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
