import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { Page, PageRequest } from '../../stores/kit/pagination';
import { normaliseEmail } from './email';
import { LAST_ADMIN, type DatabaseUserStore, type KeepRole, type NewUser, type UserRecord } from './user-store';

interface UserDocument {
  _id: string;
  email: string;
  passwordHash: string;
  role: string;
  name: string | null;
  sessionVersion?: number;
  /** Absent on documents from before verification existed: they count as verified. */
  emailVerified?: boolean;
}

/** Only the record's fields come back from a lookup. */
const PROJECTION = { email: 1, passwordHash: 1, role: 1, name: 1, sessionVersion: 1, emailVerified: 1 } as const;

function toRecord(doc: UserDocument): UserRecord {
  return { id: doc._id, email: doc.email, passwordHash: doc.passwordHash, role: doc.role, name: doc.name ?? null, sessionVersion: doc.sessionVersion ?? 0, emailVerified: doc.emailVerified ?? true };
}

/** The user store on MongoDB (collection `users`): lean lookups with a projection, one round trip each. */
export class MongoUserStore implements DatabaseUserStore {
  private readonly User: Model<UserDocument>;

  constructor(private readonly context: MongoStoreContext) {
    const schema = context.recordSchema({
      email: { type: String, required: true },
      passwordHash: { type: String, required: true },
      role: { type: String, required: true },
      name: { type: String, default: null },
      sessionVersion: { type: Number, default: 0 },
      emailVerified: { type: Boolean },
    });
    schema.index({ email: 1 }, { unique: true, name: 'users_email_unique' });
    schema.index({ createdAt: 1, _id: 1 }, { name: 'users_created_at_id' }); // the directory's order
    this.User = context.connection.model<UserDocument>('User', schema, 'users');
  }

  private findOne(filter: Record<string, string>): Promise<UserRecord | null> {
    return this.context.run(async () => {
      const doc = await this.User.findOne(filter, PROJECTION).maxTimeMS(this.context.timeoutMs).lean<UserDocument>().exec();
      return doc ? toRecord(doc) : null;
    });
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.findOne({ email: normaliseEmail(email) });
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.findOne({ _id: id });
  }

  create(user: NewUser): Promise<UserRecord> {
    return this.context.run(async () => {
      const doc = await this.User.create({ email: normaliseEmail(user.email), passwordHash: user.passwordHash, role: user.role, name: user.name ?? null, emailVerified: user.emailVerified ?? true });
      return toRecord(doc.toObject());
    });
  }

  updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    return this.context.run(async () => {
      await this.User.updateOne({ _id: id }, { $set: { passwordHash } }).exec();
    });
  }

  changePassword(id: string, passwordHash: string): Promise<number | undefined> {
    return this.context.run(async () => {
      const doc = await this.User.findOneAndUpdate({ _id: id }, { $set: { passwordHash }, $inc: { sessionVersion: 1 } }, { returnDocument: 'after', projection: PROJECTION })
        .maxTimeMS(this.context.timeoutMs)
        .lean<UserDocument>()
        .exec();
      return doc ? (doc.sessionVersion ?? 0) : undefined;
    });
  }

  markEmailVerified(id: string): Promise<boolean> {
    return this.context.run(async () => (await this.User.updateOne({ _id: id }, { $set: { emailVerified: true } }).exec()).matchedCount > 0);
  }

  endSessions(id: string): Promise<boolean> {
    return this.context.run(async () => (await this.User.updateOne({ _id: id }, { $inc: { sessionVersion: 1 } }).exec()).matchedCount > 0);
  }

  /**
   * MongoDB has no statement that updates one document on a condition over others: the guard counts the
   * role's holders first. Two administrators demoting each other at the same instant could both pass;
   * the relational engines check and change in one statement (docs/security.md).
   */
  private async wouldEmpty(id: string, guard: KeepRole | undefined, newRole?: string): Promise<boolean> {
    if (!guard || newRole === guard.keepRole) return false;
    const target = await this.User.findOne({ _id: id }, { role: 1 }).maxTimeMS(this.context.timeoutMs).lean<Pick<UserDocument, 'role'>>().exec();
    if (target?.role !== guard.keepRole) return false;
    return (await this.User.countDocuments({ role: guard.keepRole }).maxTimeMS(this.context.timeoutMs).exec()) <= 1;
  }

  list(page: PageRequest): Promise<Page<UserRecord>> {
    return this.context.run(async () => {
      const [docs, total] = await Promise.all([
        this.User.find({}, PROJECTION).sort({ createdAt: 1, _id: 1 }).skip(page.offset).limit(page.limit).maxTimeMS(this.context.timeoutMs).lean<UserDocument[]>().exec(),
        this.User.countDocuments({}).maxTimeMS(this.context.timeoutMs).exec(),
      ]);
      return { items: docs.map(toRecord), total, limit: page.limit, offset: page.offset };
    });
  }

  updateRole(id: string, role: string, guard?: KeepRole): Promise<UserRecord | null | typeof LAST_ADMIN> {
    return this.context.run(async () => {
      if (await this.wouldEmpty(id, guard, role)) return LAST_ADMIN;
      const doc = await this.User.findOneAndUpdate({ _id: id }, { $set: { role } }, { returnDocument: 'after', projection: PROJECTION })
        .maxTimeMS(this.context.timeoutMs)
        .lean<UserDocument>()
        .exec();
      return doc ? toRecord(doc) : null;
    });
  }

  delete(id: string, guard?: KeepRole): Promise<boolean | typeof LAST_ADMIN> {
    return this.context.run(async () => {
      if (await this.wouldEmpty(id, guard)) return LAST_ADMIN;
      return (await this.User.deleteOne({ _id: id }).exec()).deletedCount > 0;
    });
  }
}
