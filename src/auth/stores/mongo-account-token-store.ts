import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { AccountTokenPurpose, AccountTokenRecord, AccountTokenStore } from './account-token-store';

interface TokenDocument {
  _id: string;
  userId: string;
  purpose: AccountTokenPurpose;
  expiresAt: Date;
}

/** Account tokens on MongoDB (collection `account_tokens`): the digest is `_id`; a TTL index removes expired ones. */
export class MongoAccountTokenStore implements AccountTokenStore {
  private readonly Token: Model<TokenDocument>;

  constructor(private readonly context: MongoStoreContext) {
    const schema = new context.Schema<TokenDocument>(
      {
        _id: { type: String, required: true },
        userId: { type: String, required: true },
        purpose: { type: String, required: true },
        expiresAt: { type: Date, required: true },
      },
      { versionKey: false, timestamps: { createdAt: true, updatedAt: false } },
    );
    schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'account_tokens_expires_at' });
    schema.index({ userId: 1, purpose: 1 }, { name: 'account_tokens_user_purpose' });
    this.Token = context.connection.model<TokenDocument>('AccountToken', schema, 'account_tokens');
  }

  private static toRecord(doc: TokenDocument): AccountTokenRecord {
    return { digest: doc._id, userId: doc.userId, purpose: doc.purpose, expiresAt: doc.expiresAt };
  }

  create({ digest, ...record }: AccountTokenRecord): Promise<void> {
    return this.context.run(async () => void (await this.Token.create({ _id: digest, ...record })));
  }

  find(digest: string, purpose: AccountTokenPurpose, now = new Date()): Promise<AccountTokenRecord | null> {
    return this.context.run(async () => {
      const doc = await this.Token.findOne({ _id: digest, purpose, expiresAt: { $gt: now } })
        .maxTimeMS(this.context.timeoutMs)
        .lean<TokenDocument>()
        .exec();
      return doc ? MongoAccountTokenStore.toRecord(doc) : null;
    });
  }

  consume(digest: string, purpose: AccountTokenPurpose, now = new Date()): Promise<string | null> {
    return this.context.run(async () => {
      // One atomic findOneAndDelete: of two racing uses, one gets the document.
      const doc = await this.Token.findOneAndDelete({ _id: digest, purpose, expiresAt: { $gt: now } })
        .maxTimeMS(this.context.timeoutMs)
        .lean<TokenDocument>()
        .exec();
      return doc ? doc.userId : null;
    });
  }

  deleteForUser(userId: string, purpose: AccountTokenPurpose): Promise<number> {
    return this.context.run(async () => (await this.Token.deleteMany({ userId, purpose }).exec()).deletedCount);
  }
}
