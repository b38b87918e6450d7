import type { Model } from 'mongoose';
import { normaliseEmail } from '../email';
import { guarded } from '../guard';
import type { NewUser, UserRecord, UserStore } from '../types';
import type { UserDocument } from './models';
import { translateMongoError } from './mongo-errors';

function toRecord(doc: Pick<UserDocument, '_id' | 'email' | 'passwordHash' | 'role' | 'name'>): UserRecord {
  return { id: doc._id, email: doc.email, passwordHash: doc.passwordHash, role: doc.role, name: doc.name ?? null };
}

/** The user store on MongoDB (collection `users`). */
export class MongoUserStore implements UserStore {
  constructor(
    private readonly User: Model<UserDocument>,
    private readonly timeoutMs: number,
  ) {}

  private run<T>(operation: () => Promise<T>): Promise<T> {
    return guarded(operation, this.timeoutMs, translateMongoError);
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.run(async () => {
      const doc = await this.User.findOne({ email: normaliseEmail(email) }).maxTimeMS(this.timeoutMs).lean().exec();
      return doc ? toRecord(doc) : null;
    });
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.run(async () => {
      const doc = await this.User.findById(id).maxTimeMS(this.timeoutMs).lean().exec();
      return doc ? toRecord(doc) : null;
    });
  }

  create(user: NewUser): Promise<UserRecord> {
    return this.run(async () => {
      const doc = await this.User.create({
        email: normaliseEmail(user.email),
        passwordHash: user.passwordHash,
        role: user.role,
        name: user.name ?? null,
      });
      return toRecord(doc);
    });
  }

  updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    return this.run(async () => {
      await this.User.updateOne({ _id: id }, { $set: { passwordHash } }).exec();
    });
  }
}
