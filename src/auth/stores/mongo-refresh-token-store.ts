import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { RefreshTokenRecord, RefreshTokenStore } from './refresh-token-store';

interface RefreshTokenDocument {
  token: string;
  userId: string;
  expiresAt: Date;
}

/** Only the record's fields come back from a lookup. */
const PROJECTION = { _id: 0, token: 1, userId: 1, expiresAt: 1 } as const;

/** The refresh-token store on MongoDB (collection `refreshtokens`; expiry by the TTL index). */
export class MongoRefreshTokenStore implements RefreshTokenStore {
  private readonly RefreshToken: Model<RefreshTokenDocument>;

  constructor(private readonly context: MongoStoreContext) {
    // Keyed by the token digest, with the driver's own ObjectId as _id: nothing looks records up by _id.
    const schema = new context.Schema<RefreshTokenDocument>(
      {
        token: { type: String, required: true },
        userId: { type: String, required: true },
        expiresAt: { type: Date, required: true },
      },
      { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
    );
    schema.index({ token: 1 }, { unique: true, name: 'refreshtokens_token_unique' });
    // TTL index: MongoDB's monitor deletes a document once expiresAt has passed (it runs about every 60 s,
    // so lookups still filter on expiresAt themselves).
    schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'refreshtokens_expires_at_ttl' });
    this.RefreshToken = context.connection.model<RefreshTokenDocument>('RefreshToken', schema, 'refreshtokens');
  }

  findByToken(token: string): Promise<RefreshTokenRecord | null> {
    return this.context.run(async () => {
      // The TTL monitor runs about once a minute: filter on expiresAt so an expired document is never returned.
      const doc = await this.RefreshToken.findOne({ token, expiresAt: { $gt: new Date() } }, PROJECTION)
        .maxTimeMS(this.context.timeoutMs)
        .lean<RefreshTokenDocument>()
        .exec();
      return doc ? { token: doc.token, userId: doc.userId, expiresAt: new Date(doc.expiresAt) } : null;
    });
  }

  create(record: RefreshTokenRecord): Promise<void> {
    return this.context.run(async () => {
      await this.RefreshToken.create({ token: record.token, userId: record.userId, expiresAt: record.expiresAt });
    });
  }

  deleteByToken(token: string): Promise<boolean> {
    return this.context.run(async () => (await this.RefreshToken.deleteOne({ token }).exec()).deletedCount > 0);
  }
}
