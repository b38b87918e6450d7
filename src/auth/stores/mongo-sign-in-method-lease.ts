import { randomUUID } from 'node:crypto';
import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';

// A short lease on one user's ways in, held in their user document while a removal counts and deletes
// (MongoSignInMethodStore.removeUnlessLast): MongoDB has no multi-document transactions on a standalone
// server, and a write to one document is atomic, so one conditional findOneAndUpdate decides who holds it.
// As the document migrations' lock (stores/mongo/document-migration-lock.ts), a lease: a holder that died
// leaves it to run out. Its times are the server's ($currentDate, $$NOW), so replicas' clocks never matter.

/** The user document's field: `{ token, at }`, the holder's random token and when it claimed (server time). */
export const LEASE_FIELD = 'signInMethodsLease';

export interface LeaseTiming {
  /** How long a removal waits for another's lease on the user before it answers 'busy'. */
  waitMs: number;
  /** The pause between claims (each drawn from pollMs to 2 × pollMs, so waiters do not claim in step). */
  pollMs: number;
}

/** A removal holds the lease for milliseconds; a couple of seconds of waiting is only ever a dead holder's. */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { waitMs: 2_000, pollMs: 25 };

/**
 * How long a lease holds: four DATABASE_TIMEOUTs (the reads and the delete under it are each cut off after
 * one), at least 5 s. A crashed holder's user can have no way in removed for that long (409, try again).
 */
export const leaseMsFor = (timeoutMs: number) => Math.max(5_000, 4 * timeoutMs);

export interface Lease {
  token: string;
  /** performance.now() when the claim was sent: the server's claim time is no earlier. */
  sentAt: number;
  passwordHash: string;
}

export type ClaimResult = Lease | 'not-found' | 'busy';

interface LeasedUser {
  passwordHash: string;
}

/**
 * Claims and releases the lease through the driver's collection, not the model: the field is in no schema
 * (mongoose's strict mode would drop it), and a lease is no change to the user (no `updatedAt`).
 */
export class SignInMethodLease {
  readonly leaseMs: number;

  constructor(
    private readonly context: MongoStoreContext,
    private readonly users: () => Model<LeasedUser>,
    private readonly timing: LeaseTiming,
  ) {
    this.leaseMs = leaseMsFor(context.timeoutMs);
  }

  /** The lease on the user, claimed within waitMs; 'not-found' when there is no such user. */
  async claim(userId: string): Promise<ClaimResult> {
    const token = randomUUID();
    const deadline = performance.now() + this.timing.waitMs;
    for (;;) {
      const sentAt = performance.now();
      const user = await this.tryClaim(userId, token);
      if (user) return { token, sentAt, passwordHash: user.passwordHash };
      // No match: someone else holds it, or there is no such user.
      if (!(await this.exists(userId))) return 'not-found';
      if (performance.now() >= deadline) return 'busy';
      await new Promise((resolve) => setTimeout(resolve, this.timing.pollMs * (1 + Math.random())));
    }
  }

  /**
   * Whether a write may still be sent under the lease: it must land before the lease can run out, and the
   * delete is given two DATABASE_TIMEOUTs for that (a stalled event loop would otherwise eat the margin).
   */
  holds(lease: Lease): boolean {
    return performance.now() - lease.sentAt < this.leaseMs - 2 * this.context.timeoutMs;
  }

  /** Gives the lease up, if it is still ours. Never throws: a lease not given up runs out. */
  async release(userId: string, lease: Lease): Promise<void> {
    await this.context
      .run(() =>
        this.users().collection.updateOne(
          { _id: userId, [`${LEASE_FIELD}.token`]: lease.token } as object,
          { $unset: { [LEASE_FIELD]: '' } },
          { maxTimeMS: this.context.timeoutMs },
        ),
      )
      .catch(() => undefined);
  }

  /** One conditional update: the user document when the lease was free or had run out, else null. */
  private tryClaim(userId: string, token: string): Promise<LeasedUser | null> {
    const free = [
      { [LEASE_FIELD]: { $exists: false } },
      // $expr because the server's clock ($$NOW) decides; the branch above is the field's absence, which
      // aggregation's $lt would also count as earlier (null sorts before dates) but which is said plainly.
      { $expr: { $lt: [`$${LEASE_FIELD}.at`, { $subtract: ['$$NOW', this.leaseMs] }] } },
    ];
    return this.context.run(() =>
      this.users().collection.findOneAndUpdate(
        { _id: userId, $or: free } as object,
        { $set: { [`${LEASE_FIELD}.token`]: token }, $currentDate: { [`${LEASE_FIELD}.at`]: true } },
        { projection: { passwordHash: 1 }, maxTimeMS: this.context.timeoutMs },
      ),
    ) as Promise<LeasedUser | null>;
  }

  private async exists(userId: string): Promise<boolean> {
    return (
      (await this.context.run(() => this.users().exists({ _id: userId }).maxTimeMS(this.context.timeoutMs).exec())) !==
      null
    );
  }
}
