import type { Model } from 'mongoose';
import { guarded } from '../guard';
import type { RefreshTokenRecord, RefreshTokenStore } from '../types';
import type { RefreshTokenDocument } from './models';
import { translateMongoError } from './mongo-errors';

/** The refresh-token store on MongoDB (collection `refreshtokens`; expiry by the TTL index). */
export class MongoRefreshTokenStore implements RefreshTokenStore {
  constructor(
    private readonly RefreshToken: Model<RefreshTokenDocument>,
    private readonly timeoutMs: number,
  ) {}

  private run<T>(operation: () => Promise<T>): Promise<T> {
    return guarded(operation, this.timeoutMs, translateMongoError);
  }

  findByToken(token: string): Promise<RefreshTokenRecord | null> {
    return this.run(async () => {
      // The TTL monitor runs about once a minute: filter on expiresAt so an expired document is never returned.
      const doc = await this.RefreshToken.findOne({ token, expiresAt: { $gt: new Date() } })
        .maxTimeMS(this.timeoutMs)
        .lean()
        .exec();
      return doc ? { token: doc.token, userId: doc.userId, expiresAt: new Date(doc.expiresAt) } : null;
    });
  }

  create(record: RefreshTokenRecord): Promise<void> {
    return this.run(async () => {
      await this.RefreshToken.create({ token: record.token, userId: record.userId, expiresAt: record.expiresAt });
    });
  }

  deleteByToken(token: string): Promise<boolean> {
    return this.run(async () => (await this.RefreshToken.deleteOne({ token }).exec()).deletedCount > 0);
  }
}
