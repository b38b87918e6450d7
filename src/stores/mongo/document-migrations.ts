import type { Connection, mongo } from 'mongoose';
import { fold, foldedNameOf } from '../kit/fields';
import { foldForSearch, searchNameOf } from '../kit/shadows';
import { MIGRATIONS_TABLE, type DocumentChange, type FieldFill, type SqlMigration } from '../sql/migrations/migration';

// A resource's field renamed, removed or filled on MongoDB: what a migration's `documents` says (written by
// `npm run new:field` beside the relational steps), applied once per database in migration order and
// recorded by name in the `schema_migrations` collection, as the relational engines record theirs in the
// table of that name. A change that fails part-way is applied again at the next start: $rename, $unset and
// the fills only touch documents that still hold the old field or still lack the new one.

/** Documents read and updated per round trip while a search shadow is filled. */
export const FILL_BATCH = 1000;

/** The fields a change touches, each case-insensitive string's shadow with it (a field without one has nothing to move). */
function withShadows(change: DocumentChange): { rename: Record<string, string>; unset: string[] } {
  const rename: Record<string, string> = {};
  for (const [from, to] of Object.entries(change.rename ?? {})) Object.assign(rename, { [from]: to, [foldedNameOf(from)]: foldedNameOf(to), [searchNameOf(from)]: searchNameOf(to) });
  return { rename, unset: (change.unset ?? []).flatMap((name) => [name, foldedNameOf(name), searchNameOf(name)]) };
}

/** Applies one change: drops the indexes on the old fields (the models' indexes are built afterwards), then moves or removes them. */
async function applyChange(connection: Connection, change: DocumentChange): Promise<void> {
  const db = connection.db!;
  const collection = db.collection(change.collection);
  const { rename, unset } = withShadows(change);
  const gone = new Set([...Object.keys(rename), ...unset]);
  const existing = await db.listCollections({ name: change.collection }, { nameOnly: true }).toArray();
  if (existing.length === 0) return; // a database created after the change: nothing to move
  if (change.drop) {
    await collection.drop();
    return;
  }
  for (const index of await collection.indexes()) {
    if (index.name && Object.keys(index.key).some((path) => gone.has(path))) await collection.dropIndex(index.name);
  }
  const renamed = Object.entries(rename);
  if (renamed.length > 0) await collection.updateMany({ $or: renamed.map(([from]) => ({ [from]: { $exists: true } })) }, { $rename: rename });
  if (unset.length > 0) await collection.updateMany({ $or: unset.map((name) => ({ [name]: { $exists: true } })) }, { $unset: Object.fromEntries(unset.map((name) => [name, ''])) });
  for (const fill of change.fill ?? []) await fillField(collection, fill);
}

/** A default given to the documents without the field (its shadows with it), then a searched field's shadow computed where missing. */
async function fillField(collection: mongo.Collection, fill: FieldFill): Promise<void> {
  const value = fill.default;
  if (value !== undefined) {
    const shadows = typeof value !== 'string' ? {} : { ...(fill.caseInsensitive ? { [foldedNameOf(fill.field)]: fold(value) } : {}), ...(fill.search ? { [searchNameOf(fill.field)]: foldForSearch(value) } : {}) };
    await collection.updateMany({ [fill.field]: { $exists: false } }, { $set: { [fill.field]: value, ...shadows } });
  }
  if (fill.search) await fillSearchShadow(collection, fill.field);
}

/**
 * The folding is Unicode's (shadows.ts), which no update pipeline can do: documents are read in batches in
 * `_id` order (each batch resumes after the last, so the walk ends) and each is updated only if it still holds
 * the text that was folded; one changed meanwhile was given its shadow by the store that wrote it.
 */
async function fillSearchShadow(collection: mongo.Collection, field: string): Promise<void> {
  const shadow = searchNameOf(field);
  let after: unknown;
  for (;;) {
    const filter = { [field]: { $type: 'string' }, [shadow]: null, ...(after === undefined ? {} : { _id: { $gt: after } }) } as mongo.Filter<mongo.Document>;
    const batch = await collection.find(filter, { projection: { [field]: 1 } }).sort({ _id: 1 }).limit(FILL_BATCH).toArray();
    if (batch.length === 0) return;
    await collection.bulkWrite(
      batch.map((document) => ({ updateOne: { filter: { _id: document._id, [field]: document[field], [shadow]: null }, update: { $set: { [shadow]: foldForSearch(String(document[field])) } } } })),
      { ordered: false },
    );
    if (batch.length < FILL_BATCH) return;
    after = batch[batch.length - 1]!._id;
  }
}

/** Applies the document changes of these migrations not yet recorded on this database, oldest first; returns their names. */
export async function applyDocumentChanges(connection: Connection, migrations: readonly SqlMigration[]): Promise<string[]> {
  const pending = migrations.filter((migration) => migration.documents);
  if (pending.length === 0) return [];
  const record = connection.db!.collection<{ _id: string; appliedAt: Date }>(MIGRATIONS_TABLE);
  const applied = new Set((await record.find({ _id: { $in: pending.map((migration) => migration.name) } }).toArray()).map((row) => row._id));
  const names: string[] = [];
  for (const migration of pending) {
    if (applied.has(migration.name)) continue;
    await applyChange(connection, migration.documents!);
    await record.insertOne({ _id: migration.name, appliedAt: new Date() });
    names.push(migration.name);
  }
  return names;
}
