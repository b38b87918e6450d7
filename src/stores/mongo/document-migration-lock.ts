import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';
import { StoreUnavailableError } from '../errors';

// MongoDB's document migrations run under a lock, as the relational ones do (migration-lock.ts): instances
// starting together apply each change once; the others wait, then find it recorded. The lock is one
// document (`_id: 'migrations'`) in `schema_migrations_lock`, inserted by its holder (the unique `_id`
// makes the insert the test-and-set) and deleted when it is done. It is a lease: renewed while the work
// runs, so a holder that died (killed mid-deploy) leaves it to expire, and the next instance takes it over.

export const LOCK_COLLECTION = 'schema_migrations_lock';
const LOCK_ID = 'migrations';
const POLL_MS = 250;

export interface LockTiming {
  /** How long an instance waits for another that is migrating. */
  waitMs: number;
  /** How long the lock outlives its holder's last renewal. */
  leaseMs: number;
}

export const DEFAULT_LOCK_TIMING: LockTiming = { waitMs: 60_000, leaseMs: 60_000 };

interface LockDocument {
  _id: string;
  owner: string;
  expiresAt: Date;
}

const isDuplicateKey = (error: unknown) => (error as { code?: unknown }).code === 11000;

async function tryTake(locks: mongo.Collection<LockDocument>, owner: string, leaseMs: number): Promise<boolean> {
  const expiresAt = new Date(Date.now() + leaseMs);
  try {
    await locks.insertOne({ _id: LOCK_ID, owner, expiresAt });
    return true;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  // Held: taken over only once its lease has run out (its holder stopped renewing it).
  return (
    (await locks.findOneAndUpdate({ _id: LOCK_ID, expiresAt: { $lt: new Date() } }, { $set: { owner, expiresAt } })) !==
    null
  );
}

/** Runs `work` holding the document migrations' lock on this database. */
export async function withDocumentMigrationLock<T>(
  db: mongo.Db,
  work: () => Promise<T>,
  timing: LockTiming = DEFAULT_LOCK_TIMING,
): Promise<T> {
  const locks = db.collection<LockDocument>(LOCK_COLLECTION);
  const owner = randomUUID();
  const deadline = Date.now() + timing.waitMs;
  while (!(await tryTake(locks, owner, timing.leaseMs))) {
    if (Date.now() >= deadline)
      throw new StoreUnavailableError(
        `Another instance held the MongoDB migration lock for more than ${Math.round(timing.waitMs / 1000)} s`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const renewal = setInterval(
    () => {
      void locks
        .updateOne({ _id: LOCK_ID, owner }, { $set: { expiresAt: new Date(Date.now() + timing.leaseMs) } })
        .catch(() => undefined);
    },
    Math.max(1_000, timing.leaseMs / 3),
  );
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    await locks.deleteOne({ _id: LOCK_ID, owner });
  }
}
