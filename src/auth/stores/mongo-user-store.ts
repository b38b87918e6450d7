import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { KeyCondition } from '../../stores/kit/keyset';
import { listPage } from '../../stores/kit/list-page';
import type { ResourcePage } from '../../stores/kit/resource-store';
import { normaliseEmail } from './email';
import {
  LAST_ADMIN,
  USERS_ORDER,
  type DatabaseUserStore,
  type KeepRole,
  type ListedUser,
  type NewUser,
  type UserListQuery,
  type UserRecord,
} from './user-store';

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
  return {
    id: doc._id,
    email: doc.email,
    passwordHash: doc.passwordHash,
    role: doc.role,
    name: doc.name ?? null,
    sessionVersion: doc.sessionVersion ?? 0,
    emailVerified: doc.emailVerified ?? true,
  };
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
      const doc = await this.User.findOne(filter, PROJECTION)
        .maxTimeMS(this.context.timeoutMs)
        .lean<UserDocument>()
        .exec();
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
      const doc = await this.User.create({
        email: normaliseEmail(user.email),
        passwordHash: user.passwordHash,
        role: user.role,
        name: user.name ?? null,
        emailVerified: user.emailVerified ?? true,
      });
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
      const doc = await this.User.findOneAndUpdate(
        { _id: id },
        { $set: { passwordHash }, $inc: { sessionVersion: 1 } },
        { returnDocument: 'after', projection: PROJECTION },
      )
        .maxTimeMS(this.context.timeoutMs)
        .lean<UserDocument>()
        .exec();
      return doc ? (doc.sessionVersion ?? 0) : undefined;
    });
  }

  markEmailVerified(id: string): Promise<boolean> {
    return this.context.run(
      async () => (await this.User.updateOne({ _id: id }, { $set: { emailVerified: true } }).exec()).matchedCount > 0,
    );
  }

  endSessions(id: string): Promise<boolean> {
    return this.context.run(
      async () => (await this.User.updateOne({ _id: id }, { $inc: { sessionVersion: 1 } }).exec()).matchedCount > 0,
    );
  }

  /**
   * MongoDB has no statement that updates one document on a condition over others: the guard counts the
   * role's holders first. Two administrators demoting each other at the same instant could both pass;
   * the relational engines check and change in one statement (docs/security.md).
   */
  private async wouldEmpty(id: string, guard: KeepRole | undefined, newRole?: string): Promise<boolean> {
    if (!guard || newRole === guard.keepRole) return false;
    const target = await this.User.findOne({ _id: id }, { role: 1 })
      .maxTimeMS(this.context.timeoutMs)
      .lean<Pick<UserDocument, 'role'>>()
      .exec();
    if (target?.role !== guard.keepRole) return false;
    return (await this.User.countDocuments({ role: guard.keepRole }).maxTimeMS(this.context.timeoutMs).exec()) <= 1;
  }

  list(query: UserListQuery): Promise<ResourcePage<ListedUser>> {
    const path = (field: string) => (field === 'id' ? '_id' : field);
    const condition = ({ field, is, value }: KeyCondition) => {
      if (is === 'same') return { [path(field)]: value ?? null };
      if (is === 'notNull') return { [path(field)]: { $ne: null } };
      return { [path(field)]: { [is === 'greater' ? '$gt' : '$lt']: value } };
    };
    return this.context.run(() =>
      listPage<ListedUser>({ ...query, where: [], sort: USERS_ORDER }, () => false, {
        read: async (segment, limit, offset) => {
          const filter = segment.where.length > 0 ? { $and: segment.where.map(condition) } : {};
          const sort = Object.fromEntries(
            segment.order.map(({ field, descending }) => [path(field), descending ? -1 : 1]),
          ) as Record<string, 1 | -1>;
          const docs = await this.User.find(filter, { ...PROJECTION, createdAt: 1 })
            .sort(sort)
            .skip(offset)
            .limit(limit)
            .maxTimeMS(this.context.timeoutMs)
            .lean<(UserDocument & { createdAt: Date })[]>()
            .exec();
          return docs.map((doc) => ({ ...toRecord(doc), createdAt: doc.createdAt }));
        },
        count: (upTo) => this.User.countDocuments({}, { limit: upTo }).maxTimeMS(this.context.timeoutMs).exec(),
      }),
    );
  }

  updateRole(id: string, role: string, guard?: KeepRole): Promise<UserRecord | null | typeof LAST_ADMIN> {
    return this.context.run(async () => {
      if (await this.wouldEmpty(id, guard, role)) return LAST_ADMIN;
      const doc = await this.User.findOneAndUpdate(
        { _id: id },
        { $set: { role } },
        { returnDocument: 'after', projection: PROJECTION },
      )
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
