import type { mongo } from 'mongoose';
import { CLOCK_MARGIN_MS, REPAIR_WINDOW_MS } from '../../src/stores/search-repair-job';
import {
  openDocumentSearchRepair,
  repairDocumentSearchShadows,
  SEARCH_REPAIRS_COLLECTION,
} from '../../src/stores/mongo/search-repairs';

// What MongoDB is asked while a searched field's shadow is under repair (no server runs here; the relational
// engines run the same repair for real in rolling-search.test.ts): the repair opened before the fill, then each
// pass folds again the documents without a shadow or changed since the last one, writes only those whose
// shadow differs, each guarded by the text read, and moves the repair on, or closes it once its window is over.

function fakeDb(notes: Record<string, unknown>[]) {
  const calls: unknown[][] = [];
  const repairs: Record<string, unknown>[] = [];
  const collections: Record<string, unknown> = {
    [SEARCH_REPAIRS_COLLECTION]: {
      updateOne: async (filter: { _id: string }, update: { $set: Record<string, unknown> }, options?: unknown) => {
        calls.push(['repairs', 'updateOne', filter, update, options]);
        const found = repairs.find((repair) => repair._id === filter._id);
        if (found) Object.assign(found, update.$set);
        else repairs.push({ _id: filter._id, ...update.$set });
      },
      find: () => ({ toArray: async () => repairs.map((repair) => ({ ...repair })) }),
      deleteOne: async (filter: { _id: string }) => {
        calls.push(['repairs', 'deleteOne', filter]);
        repairs.splice(
          repairs.findIndex((repair) => repair._id === filter._id),
          1,
        );
      },
    },
    notes: {
      updateMany: async (filter: unknown, update: unknown) => void calls.push(['notes', 'updateMany', filter, update]),
      find: (filter: unknown, options: unknown) => {
        calls.push(['notes', 'find', filter, options]);
        const cursor = { sort: () => cursor, limit: () => cursor, toArray: async () => notes };
        return cursor;
      },
      bulkWrite: async (operations: unknown) => void calls.push(['notes', 'bulkWrite', operations]),
    },
  };
  const db = { collection: (name: string) => collections[name] } as unknown as mongo.Db;
  return { db, calls, repairs };
}

describe('MongoDB: a search shadow repaired while two releases run', () => {
  const opened = new Date('2026-12-07T10:00:00.000Z');

  it('opens the repair from a minute before the fill, for an hour', async () => {
    const { db, repairs } = fakeDb([]);
    await openDocumentSearchRepair(db, 'notes', 'title', opened);
    expect(repairs).toEqual([
      {
        _id: 'notes.titleSearch',
        collection: 'notes',
        field: 'title',
        since: new Date(opened.getTime() - CLOCK_MARGIN_MS),
        until: new Date(opened.getTime() + REPAIR_WINDOW_MS),
      },
    ]);
  });

  it('folds again the documents without a shadow or changed since, writes only the stale ones, and moves on', async () => {
    const { db, calls, repairs } = fakeDb([
      { _id: 'a', title: 'Été', titleSearch: 'ete' }, // right already
      { _id: 'b', title: 'Written by the previous release' }, // no shadow
      { _id: 'c', title: 'Changed', titleSearch: 'the old title' }, // an old one
    ]);
    await openDocumentSearchRepair(db, 'notes', 'title', opened);
    const pass = new Date(opened.getTime() + 30_000);
    expect(await repairDocumentSearchShadows(db, pass)).toEqual({ open: 1, refolded: 2 });
    const since = new Date(opened.getTime() - CLOCK_MARGIN_MS);
    expect(calls.filter((call) => call[0] === 'notes')).toEqual([
      [
        'notes',
        'updateMany',
        { updatedAt: { $gte: since }, title: { $not: { $type: 'string' } }, titleSearch: { $ne: null } },
        { $set: { titleSearch: null } },
      ],
      [
        'notes',
        'find',
        { title: { $type: 'string' }, $or: [{ titleSearch: null }, { updatedAt: { $gte: since } }] },
        { projection: { title: 1, titleSearch: 1 } },
      ],
      [
        'notes',
        'bulkWrite',
        [
          {
            updateOne: {
              filter: { _id: 'b', title: 'Written by the previous release' },
              update: { $set: { titleSearch: 'written by the previous release' } },
            },
          },
          { updateOne: { filter: { _id: 'c', title: 'Changed' }, update: { $set: { titleSearch: 'changed' } } } },
        ],
      ],
    ]);
    expect(repairs[0]!.since).toEqual(new Date(pass.getTime() - CLOCK_MARGIN_MS));
    await repairDocumentSearchShadows(db, new Date(opened.getTime() + REPAIR_WINDOW_MS + 1));
    expect(repairs).toEqual([]); // the window over: a last pass, then closed
  });
});
