import type { Model } from 'mongoose';
import { newId } from '../../stores/ids';
import type { MongoStoreContext } from '../../stores/kit/definition';
import { normaliseEmail } from './email';
import { toIdentity, type IdentityDocument } from './mongo-identity-store';
import { toPasskey, type PasskeyDocument } from './mongo-passkey-store';
import type { LinkedIdentity } from './identity-store';
import type { NewPasskey, PasskeyRecord } from './passkey-store';
import type { MethodRemoval, MethodRemovalResult, SignInMethodStore, WaysIn } from './sign-in-method-store';
import type { NewUser, UserRecord } from './user-store';

/** Rounds of count, delete, compare-and-set before a removal gives up ('busy'): each lost round means another removal won. */
const ATTEMPTS = 5;
/** The user document's field the compare-and-set moves (not in the users schema: read and written with strict off). */
const VERSION = 'signInMethodsVersion';
const LOOSE = { strict: false, strictQuery: false } as const;

interface VersionedUser {
  passwordHash: string;
  [VERSION]?: number;
}

/**
 * The ways in on MongoDB, through the models of the users, passkey and identity stores (this store depends on
 * them), without multi-document transactions (a standalone server has none). A removal counts, deletes, then
 * moves the user document's `signInMethodsVersion` from the value it read: of removals racing for one user,
 * only one moves it from a given value, and each loser puts back what it deleted and counts again. Deleting
 * before the compare-and-set is what makes it safe: a removal that reads the version after another's
 * compare-and-set counts after that one's delete. Between a loser's delete and its put-back its passkey or
 * identity is briefly missing (a sign-in with it then fails; it is never lost).
 */
export class MongoSignInMethodStore implements SignInMethodStore {
  constructor(private readonly context: MongoStoreContext) {}

  private get models() {
    const { connection } = this.context;
    return {
      User: connection.model('User') as unknown as Model<VersionedUser>,
      Passkey: connection.model('Passkey') as unknown as Model<PasskeyDocument>,
      Identity: connection.model('LinkedIdentity') as unknown as Model<IdentityDocument>,
    };
  }

  removeUnlessLast(userId: string, removal: MethodRemoval, keeps: (left: WaysIn) => boolean): Promise<MethodRemovalResult> {
    return this.context.run(async () => {
      const { User, Passkey, Identity } = this.models;
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const user = await User.findOne({ _id: userId }, { passwordHash: 1, [VERSION]: 1 }, LOOSE).maxTimeMS(this.context.timeoutMs).lean<VersionedUser>().exec();
        if (!user) return { outcome: 'not-found' };
        const passkeys = (await Passkey.find({ userId }).maxTimeMS(this.context.timeoutMs).lean<PasskeyDocument[]>().exec()).map(toPasskey);
        const identities = (await Identity.find({ userId }).maxTimeMS(this.context.timeoutMs).lean<IdentityDocument[]>().exec()).map(toIdentity);
        const going = 'passkeyId' in removal
          ? { passkeys: passkeys.filter((passkey) => passkey.id === removal.passkeyId), identities: [] as LinkedIdentity[] }
          : { passkeys: [] as PasskeyRecord[], identities: identities.filter((identity) => identity.issuer === removal.issuer) };
        if (going.passkeys.length + going.identities.length === 0) return { outcome: 'not-found' };
        if (!keeps({ passwordHash: user.passwordHash, passkeys: passkeys.length - going.passkeys.length, identities: identities.length - going.identities.length })) return { outcome: 'last-way' };
        if ('passkeyId' in removal) await Passkey.deleteOne({ _id: removal.passkeyId, userId }).exec();
        else await Identity.deleteMany({ userId, issuer: removal.issuer }).exec();
        const version = user[VERSION] ?? 0;
        // A document that never had the field reads as version 0 (null also matches a missing field).
        const claimed = await User.updateOne({ _id: userId, [VERSION]: version === 0 ? { $in: [0, null] } : version }, { $inc: { [VERSION]: 1 } }, LOOSE).exec();
        if (claimed.modifiedCount === 1) return { outcome: 'removed', ...going };
        await this.putBack(going);
      }
      return { outcome: 'busy' };
    });
  }

  /** What a lost round deleted, back as it was (unless it was added again meanwhile: a duplicate is ignored). */
  private async putBack(going: { passkeys: PasskeyRecord[]; identities: LinkedIdentity[] }): Promise<void> {
    const { Passkey, Identity } = this.models;
    const ignoreDuplicate = (error: unknown) => {
      if ((error as { code?: number }).code !== 11000) throw error;
    };
    for (const { id, ...rest } of going.passkeys) await Passkey.create({ _id: id, ...rest }).catch(ignoreDuplicate);
    for (const { linkedAt, ...rest } of going.identities) await Identity.create({ ...rest, createdAt: linkedAt }).catch(ignoreDuplicate);
  }

  createWithPasskey(user: NewUser & { id: string }, passkey: Omit<NewPasskey, 'userId'>): Promise<{ user: UserRecord; passkey: PasskeyRecord }> {
    const created: UserRecord = { id: user.id, email: normaliseEmail(user.email), passwordHash: user.passwordHash, role: user.role, name: user.name ?? null, sessionVersion: 0, emailVerified: user.emailVerified ?? true };
    const record: PasskeyRecord = { ...passkey, userId: user.id, id: passkey.id ?? newId(), createdAt: passkey.createdAt ?? new Date(), lastUsedAt: passkey.lastUsedAt ?? null };
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
