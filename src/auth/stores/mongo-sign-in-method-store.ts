import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import { toIdentity, type IdentityDocument } from './mongo-identity-store';
import { toPasskey, type PasskeyDocument } from './mongo-passkey-store';
import type { LinkedIdentity } from './identity-store';
import { newPasskeyRecord, type NewPasskey, type PasskeyRecord } from './passkey-store';
import { DEFAULT_LEASE_TIMING, SignInMethodLease, type LeaseTiming } from './mongo-sign-in-method-lease';
import type { MethodRemoval, MethodRemovalResult, SignInMethodStore, WaysIn } from './sign-in-method-store';
import { newUserRecord, type NewUser, type UserRecord } from './user-store';

/**
 * The ways in on MongoDB, through the models of the users, passkey and identity stores (this store depends on
 * them), without multi-document transactions (a standalone server has none). A removal first claims a short
 * lease on the user (mongo-sign-in-method-lease.ts: one conditional update of the user document), then
 * counts, deletes only what leaves a way in, and gives the lease up: removals for one user (on any replica)
 * take turns there, as the relational engines' queue on the user's row lock, and the second counts what the
 * first left. Nothing is deleted that is not meant to go, so nothing is ever put back.
 */
export class MongoSignInMethodStore implements SignInMethodStore {
  private readonly lease: SignInMethodLease;

  constructor(
    private readonly context: MongoStoreContext,
    timing: LeaseTiming = DEFAULT_LEASE_TIMING,
  ) {
    this.lease = new SignInMethodLease(context, () => this.models.User, timing);
  }

  private get models() {
    const { connection } = this.context;
    return {
      User: connection.model('User') as unknown as Model<{ passwordHash: string }>,
      Passkey: connection.model('Passkey') as unknown as Model<PasskeyDocument>,
      Identity: connection.model('LinkedIdentity') as unknown as Model<IdentityDocument>,
    };
  }

  /** Each call is its own bounded store call (context.run): the wait for a lease is not cut off as one query. */
  async removeUnlessLast(
    userId: string,
    removal: MethodRemoval,
    keeps: (left: WaysIn) => boolean,
  ): Promise<MethodRemovalResult> {
    const lease = await this.lease.claim(userId);
    if (lease === 'not-found') return { outcome: 'not-found' };
    if (lease === 'busy') return { outcome: 'busy' };
    // A delete sent but not answered (cut off, connection lost) may still land: then the lease is left to
    // run out rather than given up, so that no other removal counts before it lands.
    let deleteUnanswered = false;
    try {
      const { passkeys, identities } = await this.waysIn(userId);
      const going =
        'passkeyId' in removal
          ? {
              passkeys: passkeys.filter((passkey) => passkey.id === removal.passkeyId),
              identities: [] as LinkedIdentity[],
            }
          : {
              passkeys: [] as PasskeyRecord[],
              identities: identities.filter((identity) => identity.issuer === removal.issuer),
            };
      if (going.passkeys.length + going.identities.length === 0) return { outcome: 'not-found' };
      if (
        !keeps({
          passwordHash: lease.passwordHash,
          passkeys: passkeys.length - going.passkeys.length,
          identities: identities.length - going.identities.length,
        })
      )
        return { outcome: 'last-way' };
      if (!this.lease.holds(lease)) return { outcome: 'busy' }; // too slow so far: the lease might run out under the delete
      deleteUnanswered = true;
      await this.context.run(() => {
        const { Passkey, Identity } = this.models;
        const query =
          'passkeyId' in removal
            ? Passkey.deleteOne({ _id: removal.passkeyId, userId })
            : Identity.deleteMany({ userId, issuer: removal.issuer });
        return query.maxTimeMS(this.context.timeoutMs).exec();
      });
      deleteUnanswered = false;
      return { outcome: 'removed', ...going };
    } finally {
      if (!deleteUnanswered) await this.lease.release(userId, lease);
    }
  }

  /** The user's passkeys and identities, read one after the other under the lease. */
  private async waysIn(userId: string): Promise<{ passkeys: PasskeyRecord[]; identities: LinkedIdentity[] }> {
    const { Passkey, Identity } = this.models;
    const passkeys = await this.context.run(() =>
      Passkey.find({ userId }).maxTimeMS(this.context.timeoutMs).lean<PasskeyDocument[]>().exec(),
    );
    const identities = await this.context.run(() =>
      Identity.find({ userId }).maxTimeMS(this.context.timeoutMs).lean<IdentityDocument[]>().exec(),
    );
    return { passkeys: passkeys.map(toPasskey), identities: identities.map(toIdentity) };
  }

  createWithPasskey(
    user: NewUser & { id: string },
    passkey: Omit<NewPasskey, 'userId'>,
  ): Promise<{ user: UserRecord; passkey: PasskeyRecord }> {
    const created = newUserRecord(user, user.id);
    const record = newPasskeyRecord({ ...passkey, userId: user.id });
    return this.context.run(async () => {
      const { User, Passkey } = this.models;
      const { id, ...fields } = created;
      await User.create({ _id: id, ...fields });
      try {
        const { id: passkeyId, ...rest } = record;
        await Passkey.create({ _id: passkeyId, ...rest });
      } catch (error) {
        await User.deleteOne({ _id: id }).exec(); // no transaction: the user goes again, so no account is left without its way in
        throw error;
      }
      return { user: created, passkey: record };
    });
  }
}
