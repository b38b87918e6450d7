import { randomUUID } from 'node:crypto';
import type { mongo } from 'mongoose';
import { StoreUnavailableError } from '../errors';

// MongoDB's document migrations run under a lock, as the relational ones do (migration-lock.ts): instances
// starting together apply each change once; the others wait, then find it recorded. The lock is one
// document (`_id: 'migrations'`) in `schema_migrations_lock`, claimed by one upsert that takes it only when
// it is free (the unique `_id` makes it the test-and-set) and deleted when its holder is done. It is a
// lease, and its times are the server's (`$$NOW`): a replica whose clock runs ahead cannot take a live
// lease. A holder renews it while the work runs, so one that died (killed mid-deploy) leaves it to run out
// and the next takes it over; and before each step the holder checks, by the same renewal, that it still
// holds an unexpired lease (`fence`), so a holder stalled past its lease stops instead of applying beside
// the next one.

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
  /** When its holder last claimed or renewed it, by the server's clock. */
  at: Date;
  /**
   * When it runs out (`at` + the lease): what a release before `at` judged a lock by, still written so that
   * releases of either kind, running together or rolled back, each take over the other's abandoned lock.
   */
  expiresAt: Date;
}

/** The holder of the lock lost it (stalled past its lease): another instance may be migrating now. */
export class MigrationLeaseLostError extends Error {
  constructor() {
    super(
      'this instance lost the MongoDB migration lock (it stalled past its lease) and stopped before its next step; ' +
        'another instance may be migrating: start it again once that one is done',
    );
    this.name = 'MigrationLeaseLostError';
  }
}

const isDuplicateKey = (error: unknown) => (error as { code?: unknown }).code === 11000;

/**
 * One upsert claims the lock: an update pipeline (a query predicate of an upsert may not hold `$expr`) that
 * makes this instance the owner, at the server's `$$NOW`, when the lock has no owner yet or its lease has run
 * out, and otherwise leaves it as it is. It answers the lock as it is after: ours, or someone else's.
 */
async function tryTake(locks: mongo.Collection<LockDocument>, owner: string, leaseMs: number): Promise<boolean> {
  // A lock written without `at` (by a release before it) runs out at its expiresAt.
  const claimed = { $ifNull: ['$at', { $subtract: ['$expiresAt', leaseMs] }] };
  const free = {
    $or: [{ $eq: [{ $type: '$owner' }, 'missing'] }, { $lt: [claimed, { $subtract: ['$$NOW', leaseMs] }] }],
  };
  const claim = {
    owner: { $cond: [free, owner, '$owner'] },
    at: { $cond: [free, '$$NOW', '$at'] },
    expiresAt: { $cond: [free, { $add: ['$$NOW', leaseMs] }, '$expiresAt'] },
  };
  try {
    const after = await locks.findOneAndUpdate({ _id: LOCK_ID }, [{ $set: claim }], {
      upsert: true,
      returnDocument: 'after',
    });
    return after?.owner === owner;
  } catch (error) {
    if (isDuplicateKey(error)) return false; // two first claims at once: the other one's insert won
    throw error;
  }
}

/** Renews the lease if this owner still holds it unexpired; false when it does not. */
async function renew(locks: mongo.Collection<LockDocument>, owner: string, leaseMs: number): Promise<boolean> {
  const live = { $expr: { $gte: ['$at', { $subtract: ['$$NOW', leaseMs] }] } };
  const { matchedCount } = await locks.updateOne({ _id: LOCK_ID, owner, ...live }, [
    { $set: { at: '$$NOW', expiresAt: { $add: ['$$NOW', leaseMs] } } },
  ]);
  return matchedCount > 0;
}

/**
 * Runs `work` holding the document migrations' lock on this database. `work` calls `fence()` before each step:
 * it throws MigrationLeaseLostError once the lease is no longer this instance's.
 */
export async function withDocumentMigrationLock<T>(
  db: mongo.Db,
  work: (fence: () => Promise<void>) => Promise<T>,
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
    () => void renew(locks, owner, timing.leaseMs).catch(() => undefined),
    Math.max(1_000, timing.leaseMs / 3),
  );
  renewal.unref();
  const fence = async () => {
    if (!(await renew(locks, owner, timing.leaseMs))) throw new MigrationLeaseLostError();
  };
  try {
    return await work(fence);
  } finally {
    clearInterval(renewal);
    await locks.deleteOne({ _id: LOCK_ID, owner });
  }
}
