import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { NewRefreshToken, RefreshTokenRecord, RefreshTokenStore } from './refresh-token-store';

interface RefreshTokenDocument {
  token: string;
  userId: string;
  expiresAt: Date;
  /** Missing on documents from before families: such a document is a family of its own. */
  familyId?: string;
  retiredAt?: Date | null;
}

/** Only the record's fields come back from a lookup. */
const PROJECTION = { _id: 0, token: 1, userId: 1, expiresAt: 1, familyId: 1, retiredAt: 1 } as const;

function toRecord(doc: RefreshTokenDocument): RefreshTokenRecord {
  return {
    token: doc.token,
    userId: doc.userId,
    expiresAt: new Date(doc.expiresAt),
    familyId: doc.familyId ?? doc.token,
    retiredAt: doc.retiredAt ? new Date(doc.retiredAt) : null,
  };
}

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
        familyId: { type: String },
        retiredAt: { type: Date, default: null },
      },
      { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
    );
    schema.index({ token: 1 }, { unique: true, name: 'refreshtokens_token_unique' });
    // TTL index: MongoDB's monitor deletes a document once expiresAt has passed (it runs about every 60 s,
    // so lookups still filter on expiresAt themselves).
    schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'refreshtokens_expires_at_ttl' });
    schema.index({ familyId: 1 }, { name: 'refreshtokens_family_id' });
    schema.index({ userId: 1 }, { name: 'refreshtokens_user_id' });
    this.RefreshToken = context.connection.model<RefreshTokenDocument>('RefreshToken', schema, 'refreshtokens');
  }

  findByToken(token: string): Promise<RefreshTokenRecord | null> {
    return this.context.run(async () => {
      // The TTL monitor runs about once a minute: filter on expiresAt so an expired document is never returned.
      const doc = await this.RefreshToken.findOne({ token, expiresAt: { $gt: new Date() } }, PROJECTION)
        .maxTimeMS(this.context.timeoutMs)
        .lean<RefreshTokenDocument>()
        .exec();
      return doc ? toRecord(doc) : null;
    });
  }

  create(record: NewRefreshToken): Promise<void> {
    return this.context.run(async () => {
      await this.RefreshToken.create({
        token: record.token,
        userId: record.userId,
        expiresAt: record.expiresAt,
        familyId: record.familyId ?? record.token,
      });
    });
  }

  deleteByToken(token: string): Promise<boolean> {
    return this.context.run(async () => (await this.RefreshToken.deleteOne({ token }).exec()).deletedCount > 0);
  }

  retire(token: string, at: Date): Promise<boolean> {
    // A single-document update is atomic: of racing calls, one matches `retiredAt: null` (which also matches
    // a document without the field) and the rest match nothing.
    return this.context.run(async () => {
      const result = await this.RefreshToken.updateOne({ token, retiredAt: null }, { $set: { retiredAt: at } }).exec();
      return result.modifiedCount > 0;
    });
  }

  /**
   * Without a replica set there are no multi-document transactions: the successor is stored after the
   * retire, and if storing it fails the retire is undone (the presented token is live again), so the
   * client is never left holding a retired token with no successor.
   */
  rotate(token: string, successor: NewRefreshToken & { familyId: string }, at: Date): Promise<boolean> {
    return this.context.run(async () => {
      const retired = await this.RefreshToken.updateOne({ token, retiredAt: null }, { $set: { retiredAt: at } }).exec();
      if (retired.modifiedCount === 0) return false;
      try {
        await this.RefreshToken.create({
          token: successor.token,
          userId: successor.userId,
          expiresAt: successor.expiresAt,
          familyId: successor.familyId,
        });
      } catch (error) {
        await this.RefreshToken.updateOne({ token, retiredAt: at }, { $set: { retiredAt: null } })
          .exec()
          .catch(() => undefined);
        throw error;
      }
      return true;
    });
  }

  deleteFamily(familyId: string): Promise<number> {
    // Documents from before families carry no familyId: for them the family is the token itself. Twice: a
    // rotation that retired a member just before the first pass stores its successor just after it.
    const filter = { $or: [{ familyId }, { familyId: { $exists: false }, token: familyId }] };
    return this.context.run(async () => {
      const first = (await this.RefreshToken.deleteMany(filter).exec()).deletedCount;
      return first + (await this.RefreshToken.deleteMany(filter).exec()).deletedCount;
    });
  }

  deleteByUser(userId: string): Promise<number> {
    return this.context.run(async () => (await this.RefreshToken.deleteMany({ userId }).exec()).deletedCount);
  }
}
