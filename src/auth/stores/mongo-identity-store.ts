import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { IdentityStore, LinkedIdentity } from './identity-store';

export interface IdentityDocument {
  issuer: string;
  subject: string;
  userId: string;
  provider: string;
  createdAt: Date;
}

export const toIdentity = (doc: IdentityDocument): LinkedIdentity => ({
  issuer: doc.issuer,
  subject: doc.subject,
  userId: doc.userId,
  provider: doc.provider,
  linkedAt: new Date(doc.createdAt),
});

/**
 * Linked identities on MongoDB (collection `linked_identities`): a unique index on (issuer, subject) makes
 * a second link of the same identity a DuplicateKeyError, as the relational primary key does.
 */
export class MongoIdentityStore implements IdentityStore {
  private readonly Identity: Model<IdentityDocument>;

  constructor(private readonly context: MongoStoreContext) {
    const { Schema, connection } = context;
    const schema = new Schema<IdentityDocument>(
      {
        issuer: { type: String, required: true },
        subject: { type: String, required: true },
        userId: { type: String, required: true },
        provider: { type: String, required: true },
        createdAt: { type: Date, required: true },
      },
      { versionKey: false },
    );
    schema.index({ issuer: 1, subject: 1 }, { unique: true, name: 'linked_identities_issuer_subject' });
    schema.index({ userId: 1 }, { name: 'linked_identities_user' });
    this.Identity = connection.model<IdentityDocument>('LinkedIdentity', schema, 'linked_identities');
  }

  find(issuer: string, subject: string): Promise<LinkedIdentity | null> {
    return this.context.run(async () => {
      const doc = await this.Identity.findOne({ issuer, subject })
        .maxTimeMS(this.context.timeoutMs)
        .lean<IdentityDocument>()
        .exec();
      return doc ? toIdentity(doc) : null;
    });
  }

  listByUser(userId: string): Promise<LinkedIdentity[]> {
    return this.context.run(async () => {
      const docs = await this.Identity.find({ userId })
        .sort({ createdAt: 1, issuer: 1 })
        .maxTimeMS(this.context.timeoutMs)
        .lean<IdentityDocument[]>()
        .exec();
      return docs.map(toIdentity);
    });
  }

  link(identity: Omit<LinkedIdentity, 'linkedAt'>): Promise<LinkedIdentity> {
    return this.context.run(async () => {
      const createdAt = new Date();
      await this.Identity.create({ ...identity, createdAt });
      return { ...identity, linkedAt: createdAt };
    });
  }

  unlink(userId: string, issuer: string): Promise<number> {
    return this.context.run(async () => (await this.Identity.deleteMany({ userId, issuer }).exec()).deletedCount);
  }

  removeUser(userId: string): Promise<number> {
    return this.context.run(async () => (await this.Identity.deleteMany({ userId }).exec()).deletedCount);
  }
}
