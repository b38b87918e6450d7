import type { Connection, mongo } from 'mongoose';
import { fold, foldedNameOf } from '../kit/fields';
import { foldForSearch, searchNameOf } from '../kit/shadows';
import { openDocumentSearchRepair } from './search-repairs';
import { DestructiveMigrationError } from '../errors';
import { CATALOGUE_OWNER } from '../kit/access-policy';
import { MIGRATIONS_TABLE, type DocumentChange, type FieldFill, type SqlMigration } from '../sql/migrations/migration';
import { withDocumentMigrationLock, type LockTiming } from './document-migration-lock';

// A resource's field renamed, removed or filled on MongoDB: what a migration's `documents` says (written by
// `npm run new:field` beside the relational steps), applied once per database in migration order and
// recorded by name in the `schema_migrations` collection, as the relational engines record theirs in the
// table of that name. Under a lock (document-migration-lock.ts), so instances starting together apply each
// change once; and every step treats "already done" as done (an index or collection already dropped, the
// record already written), so a change that failed part-way is simply applied again at the next start:
// $rename, $unset and the fills only touch documents that still hold the old field or still lack the new one.

/** Documents read and updated per round trip while a search shadow is filled. */
export const FILL_BATCH = 1000;

/** The fields a change touches, each case-insensitive string's shadow with it (a field without one has nothing to move). */
function withShadows(change: DocumentChange): { rename: Record<string, string>; unset: string[] } {
  const rename: Record<string, string> = {};
  for (const [from, to] of Object.entries(change.rename ?? {}))
    Object.assign(rename, {
      [from]: to,
      [foldedNameOf(from)]: foldedNameOf(to),
      [searchNameOf(from)]: searchNameOf(to),
    });
  return { rename, unset: (change.unset ?? []).flatMap((name) => [name, foldedNameOf(name), searchNameOf(name)]) };
}

/** Server codes meaning "already done": the index (27, IndexNotFound) or the collection (26, NamespaceNotFound) is gone already. */
const ALREADY_GONE = new Set([26, 27]);

async function alreadyDoneIsDone(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!ALREADY_GONE.has((error as { code?: unknown }).code as number)) throw error;
  }
}

async function collectionExists(db: mongo.Db, name: string): Promise<boolean> {
  return (await db.listCollections({ name }, { nameOnly: true }).toArray()).length > 0;
}

/** Drops the indexes on these fields (the models' indexes are built afterwards, by the release that declares them). */
async function dropIndexesOn(collection: mongo.Collection, fields: ReadonlySet<string>): Promise<void> {
  for (const index of await collection.indexes()) {
    if (index.name && Object.keys(index.key).some((path) => fields.has(path)))
      await alreadyDoneIsDone(() => collection.dropIndex(index.name!));
  }
}

async function renameFields(collection: mongo.Collection, rename: Record<string, string>): Promise<void> {
  const renamed = Object.entries(rename);
  if (renamed.length > 0)
    await collection.updateMany({ $or: renamed.map(([from]) => ({ [from]: { $exists: true } })) }, { $rename: rename });
}

/** Applies one change: drops the indexes on the old fields (the models' indexes are built afterwards), then moves or removes them. */
async function applyChange(connection: Connection, change: DocumentChange): Promise<void> {
  const db = connection.db!;
  const collection = db.collection(change.collection);
  const { rename, unset } = withShadows(change);
  if (!(await collectionExists(db, change.collection))) return; // a database created after the change: nothing to move
  if (change.drop) {
    await alreadyDoneIsDone(() => collection.drop());
    return;
  }
  await dropIndexesOn(collection, new Set([...Object.keys(rename), ...unset]));
  await renameFields(collection, rename);
  if (unset.length > 0)
    await collection.updateMany(
      { $or: unset.map((name) => ({ [name]: { $exists: true } })) },
      { $unset: Object.fromEntries(unset.map((name) => [name, ''])) },
    );
  for (const fill of change.fill ?? []) {
    // Before the fill: what the previous release writes from now on is repaired after it (search-repairs.ts).
    if (fill.search) await openDocumentSearchRepair(db, change.collection, fill.field);
    await fillField(collection, fill);
  }
  if (change.catalogue) await makeCatalogue(collection, change.catalogue.unique);
}

/** Every document the catalogue's, after checking that no unique key would clash once they share the owner (as catalogue-owner.ts does). */
async function makeCatalogue(collection: mongo.Collection, unique: readonly (readonly string[])[]): Promise<void> {
  for (const key of unique) {
    const grouped = [
      { $match: Object.fromEntries(key.map((path) => [path, { $ne: null }])) },
      {
        $group: {
          _id: Object.fromEntries(key.map((path) => [path.replace(/\./g, '_'), `$${path}`])),
          count: { $sum: 1 },
        },
      },
      { $match: { count: { $gt: 1 } } },
      { $limit: 1 },
    ];
    const [clash] = await collection.aggregate<{ _id: Record<string, unknown>; count: number }>(grouped).toArray();
    if (clash)
      throw new Error(
        `cannot make ${collection.collectionName} a catalogue: ${clash.count} documents of different owners share ${JSON.stringify(clash._id)}, which its unique key (${key.join(', ')}) allows once; make them differ (or delete some), then migrate again`,
      );
  }
  await collection.updateMany({ ownerId: { $ne: CATALOGUE_OWNER } }, { $set: { ownerId: CATALOGUE_OWNER } });
}

/** A default given to the documents without the field (its shadows with it), then a searched field's shadow computed where missing. */
async function fillField(collection: mongo.Collection, fill: FieldFill): Promise<void> {
  const value = fill.default;
  if (value !== undefined) {
    const shadows =
      typeof value !== 'string'
        ? {}
        : {
            ...(fill.caseInsensitive ? { [foldedNameOf(fill.field)]: fold(value) } : {}),
            ...(fill.search ? { [searchNameOf(fill.field)]: foldForSearch(value) } : {}),
          };
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
    const filter = {
      [field]: { $type: 'string' },
      [shadow]: null,
      ...(after === undefined ? {} : { _id: { $gt: after } }),
    } as mongo.Filter<mongo.Document>;
    const batch = await collection
      .find(filter, { projection: { [field]: 1 } })
      .sort({ _id: 1 })
      .limit(FILL_BATCH)
      .toArray();
    if (batch.length === 0) return;
    await collection.bulkWrite(
      batch.map((document) => ({
        updateOne: {
          filter: { _id: document._id, [field]: document[field], [shadow]: null },
          update: { $set: { [shadow]: foldForSearch(String(document[field])) } },
        },
      })),
      { ordered: false },
    );
    if (batch.length < FILL_BATCH) return;
    after = batch[batch.length - 1]!._id;
  }
}

type AppliedRecords = mongo.Collection<{ _id: string; appliedAt: Date }>;

const recordOf = (connection: Connection): AppliedRecords =>
  connection.db!.collection<{ _id: string; appliedAt: Date }>(MIGRATIONS_TABLE);

/** What a change would destroy here: a dropped collection's documents, removed fields' values (`notes.colour (values)`). */
async function dataAtRisk(connection: Connection, change: DocumentChange): Promise<string[]> {
  const db = connection.db!;
  if (!(await collectionExists(db, change.collection))) return [];
  const collection = db.collection(change.collection);
  if (change.drop)
    return (await collection.findOne({}, { projection: { _id: 1 } }))
      ? [`collection ${change.collection} (documents)`]
      : [];
  const held: string[] = [];
  for (const field of change.unset ?? [])
    if (await collection.findOne({ [field]: { $exists: true } }, { projection: { _id: 1 } }))
      held.push(`field ${change.collection}.${field} (values)`);
  return held;
}

async function refuseDestructive(connection: Connection, pending: readonly SqlMigration[]): Promise<void> {
  const refused: { migration: string; holds: string[] }[] = [];
  for (const migration of pending) {
    const holds = await dataAtRisk(connection, migration.documents!);
    if (holds.length > 0) refused.push({ migration: migration.name, holds });
  }
  if (refused.length > 0) throw new DestructiveMigrationError(refused);
}

export interface DocumentMigrationOptions {
  /** Apply changes that drop a collection or fields holding data (`db:migrate -- up --allow-destructive`). */
  allowDestructive?: boolean;
  lock?: LockTiming;
}

/**
 * Applies the document changes of these migrations not yet recorded on this database, oldest first, under
 * the lock; returns their names. Unless `allowDestructive`, applies none while one would destroy data.
 */
export async function applyDocumentChanges(
  connection: Connection,
  migrations: readonly SqlMigration[],
  options: DocumentMigrationOptions = {},
): Promise<string[]> {
  const changing = migrations.filter((migration) => migration.documents);
  if (changing.length === 0) return [];
  return withDocumentMigrationLock(
    connection.db!,
    async (fence) => {
      const record = recordOf(connection);
      const applied = new Set(
        (await record.find({ _id: { $in: changing.map((migration) => migration.name) } }).toArray()).map(
          (row) => row._id,
        ),
      );
      const pending = changing.filter((migration) => !applied.has(migration.name));
      if (!options.allowDestructive) await refuseDestructive(connection, pending);
      for (const migration of pending) {
        await fence();
        await applyChange(connection, migration.documents!);
        await fence();
        await alreadyRecordedIsRecorded(() => record.insertOne({ _id: migration.name, appliedAt: new Date() }));
      }
      return pending.map((migration) => migration.name);
    },
    options.lock,
  );
}

async function alreadyRecordedIsRecorded(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 11000) throw error;
  }
}

/** A recorded document change that cannot be undone: the data it removed is gone. */
export class IrreversibleDocumentChangeError extends Error {
  constructor(migration: string, what: string) {
    super(
      `cannot revert ${migration} on MongoDB: it ${what}, and their values are gone; restore them from a backup (the record stays, so nothing is reapplied)`,
    );
    this.name = 'IrreversibleDocumentChangeError';
  }
}

/**
 * Reverts the last recorded document change (`db:migrate -- down` on MongoDB), under the lock: renamed
 * fields take their old names back (with their shadows; the indexes on the new names dropped, the release
 * before builds its own at its start); values a change filled in stay, unread by the release before; a
 * dropped collection or removed fields cannot come back (IrreversibleDocumentChangeError). Returns the
 * migration's name, or undefined when no change is recorded.
 */
export async function revertLastDocumentChange(
  connection: Connection,
  migrations: readonly SqlMigration[],
  options: { lock?: LockTiming } = {},
): Promise<string | undefined> {
  const changing = migrations.filter((migration) => migration.documents);
  if (changing.length === 0) return undefined;
  return withDocumentMigrationLock(
    connection.db!,
    async (fence) => {
      const record = recordOf(connection);
      const applied = new Set(
        (await record.find({ _id: { $in: changing.map((migration) => migration.name) } }).toArray()).map(
          (row) => row._id,
        ),
      );
      const last = changing.filter((migration) => applied.has(migration.name)).at(-1);
      if (!last) return undefined;
      const change = last.documents!;
      if (change.drop)
        throw new IrreversibleDocumentChangeError(last.name, `dropped the collection ${change.collection}`);
      if (change.unset?.length)
        throw new IrreversibleDocumentChangeError(
          last.name,
          `removed ${change.unset.map((field) => `${change.collection}.${field}`).join(', ')}`,
        );
      const back = Object.fromEntries(Object.entries(withShadows(change).rename).map(([from, to]) => [to, from]));
      await fence();
      if (Object.keys(back).length > 0 && (await collectionExists(connection.db!, change.collection))) {
        const collection = connection.db!.collection(change.collection);
        await dropIndexesOn(collection, new Set(Object.keys(back)));
        await renameFields(collection, back);
      }
      await fence();
      await record.deleteOne({ _id: last.name });
      return last.name;
    },
    options.lock,
  );
}
