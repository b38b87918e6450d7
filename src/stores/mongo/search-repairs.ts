import type { mongo } from 'mongoose';
import { foldForSearch, searchNameOf } from '../kit/shadows';
import { CLOCK_MARGIN_MS, REPAIR_WINDOW_MS } from '../search-repair-job';

// MongoDB's side of a search shadow added while two releases run (sql/migrations/search-repairs.ts says why):
// the document change that fills a field's `…Search` shadow opens a repair in the `search_repairs` collection
// before it fills, and every instance of the new release passes over the collection while the repair is open:
// it fills the shadows still missing and folds again the documents whose `updatedAt` is at or after its last
// pass, writing only those that differ, each only while it still holds the text read.

export const SEARCH_REPAIRS_COLLECTION = 'search_repairs';

/** Documents read and written per round trip of a pass. */
const BATCH = 1000;

interface RepairDocument {
  _id: string;
  collection: string;
  field: string;
  since: Date;
  until: Date;
}

/** Opens (or reopens) the repair of `field`'s search shadow in `collection`, from a moment before its fill. */
export async function openDocumentSearchRepair(
  db: mongo.Db,
  collection: string,
  field: string,
  now = new Date(),
): Promise<void> {
  const since = new Date(now.getTime() - CLOCK_MARGIN_MS);
  const until = new Date(now.getTime() + REPAIR_WINDOW_MS);
  await db
    .collection<RepairDocument>(SEARCH_REPAIRS_COLLECTION)
    .updateOne(
      { _id: `${collection}.${searchNameOf(field)}` },
      { $set: { collection, field, since, until } },
      { upsert: true },
    );
}

/**
 * Folds `field` of the documents that hold text and whose shadow is missing, or that changed since `since`,
 * in `_id` order; writes those whose shadow differs, each guarded by the text read. Returns the documents written.
 */
async function refold(documents: mongo.Collection, field: string, since: Date): Promise<number> {
  const shadow = searchNameOf(field);
  // A value emptied since: no shadow either.
  await documents.updateMany(
    { updatedAt: { $gte: since }, [field]: { $not: { $type: 'string' } }, [shadow]: { $ne: null } },
    { $set: { [shadow]: null } },
  );
  let after: unknown;
  let written = 0;
  for (;;) {
    const filter = {
      [field]: { $type: 'string' },
      $or: [{ [shadow]: null }, { updatedAt: { $gte: since } }],
      ...(after === undefined ? {} : { _id: { $gt: after } }),
    } as mongo.Filter<mongo.Document>;
    const batch = await documents
      .find(filter, { projection: { [field]: 1, [shadow]: 1 } })
      .sort({ _id: 1 })
      .limit(BATCH)
      .toArray();
    const stale = batch.filter((document) => document[shadow] !== foldForSearch(String(document[field])));
    if (stale.length > 0)
      await documents.bulkWrite(
        stale.map((document) => ({
          updateOne: {
            filter: { _id: document._id, [field]: document[field] },
            update: { $set: { [shadow]: foldForSearch(String(document[field])) } },
          },
        })),
        { ordered: false },
      );
    written += stale.length;
    if (batch.length < BATCH) return written;
    after = batch[batch.length - 1]!._id;
  }
}

/** One pass of every open repair on this database, as repairSearchShadows is on the relational engines. */
export async function repairDocumentSearchShadows(
  db: mongo.Db,
  now = new Date(),
): Promise<{ open: number; refolded: number }> {
  const repairs = db.collection<RepairDocument>(SEARCH_REPAIRS_COLLECTION);
  const result = { open: 0, refolded: 0 };
  for (const repair of await repairs.find({}).toArray()) {
    result.refolded += await refold(db.collection(repair.collection), repair.field, repair.since);
    if (now >= repair.until) await repairs.deleteOne({ _id: repair._id });
    else {
      result.open += 1;
      await repairs.updateOne({ _id: repair._id }, { $set: { since: new Date(now.getTime() - CLOCK_MARGIN_MS) } });
    }
  }
  return result;
}
