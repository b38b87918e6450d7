import type { LinkedIdentity } from './identity-store';
import type { NewPasskey, PasskeyRecord } from './passkey-store';
import type { NewUser, UserRecord } from './user-store';

// What a user signs in with, across the tables that hold it (users' password hash, passkeys, linked
// identities), changed where one change must see the others: removing a way in, and making a user whose only
// way in is a passkey. A store of its own because it spans three others' tables; it depends on them
// (definitions.ts), so their models are defined on the connection before it is opened.

/** The ways in a user would have left after a removal, as counted under the lock. */
export interface WaysIn {
  /** The stored hash: a password's, or the no-password marker (NO_PASSWORD). */
  passwordHash: string;
  passkeys: number;
  identities: number;
}

/** A way in to remove: one passkey (by our id), or every identity at one provider (by issuer). */
export type MethodRemoval = { passkeyId: string } | { issuer: string };

export type MethodRemovalResult =
  | { outcome: 'removed'; passkeys: PasskeyRecord[]; identities: LinkedIdentity[] }
  /** No such passkey or identity of the user (or no such user). */
  | { outcome: 'not-found' }
  /** `keeps` refused what would be left. */
  | { outcome: 'last-way' }
  /** MongoDB only: the user's lease was held past the wait (by another removal, or a crashed one's not yet run out); nothing changed. */
  | { outcome: 'busy' };

export interface SignInMethodStore {
  /**
   * Removes the passkey or identities when `keeps` accepts what would be left, decided so that removals racing
   * for one user (on any replica) never both pass: on the relational engines in one transaction that first
   * locks the user's row; on MongoDB under a short lease claimed in the user document (`signInMethodsLease`).
   */
  removeUnlessLast(
    userId: string,
    removal: MethodRemoval,
    keeps: (left: WaysIn) => boolean,
  ): Promise<MethodRemovalResult>;
  /**
   * A new user and their first passkey, together: one transaction on the relational engines; on MongoDB the
   * user is removed again when the passkey cannot be added. DuplicateKeyError when the address (or the
   * credential id) is taken; then nothing is left behind.
   */
  createWithPasskey(
    user: NewUser & { id: string },
    passkey: Omit<NewPasskey, 'userId'>,
  ): Promise<{ user: UserRecord; passkey: PasskeyRecord }>;
}
