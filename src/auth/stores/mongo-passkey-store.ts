import type { Model } from 'mongoose';
import type { MongoStoreContext } from '../../stores/kit/definition';
import {
  MAX_PASSKEYS_PER_USER,
  newPasskeyRecord,
  type NewPasskey,
  type PasskeyRecord,
  type PasskeyStore,
  type PasskeyTransport,
} from './passkey-store';

export interface PasskeyDocument {
  _id: string;
  userId: string;
  credentialId: Buffer | { buffer: Uint8Array };
  publicKey: Buffer | { buffer: Uint8Array };
  counter: number;
  transports: PasskeyTransport[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A lean read gives BSON Binary (its bytes in `.buffer`), a hydrated one a Buffer. */
const bytesOf = (value: Buffer | { buffer: Uint8Array }) =>
  Buffer.isBuffer(value) ? value : Buffer.from(value.buffer);

export const toPasskey = (doc: PasskeyDocument): PasskeyRecord => ({
  id: doc._id,
  userId: doc.userId,
  credentialId: bytesOf(doc.credentialId),
  publicKey: bytesOf(doc.publicKey),
  counter: doc.counter,
  transports: doc.transports,
  name: doc.name,
  createdAt: new Date(doc.createdAt),
  lastUsedAt: doc.lastUsedAt ? new Date(doc.lastUsedAt) : null,
});

/**
 * Passkeys on MongoDB (collection `passkeys`): a unique index on the credential id (BinData, compared as
 * bytes) makes a second registration of one credential a DuplicateKeyError, as on the relational engines.
 */
export class MongoPasskeyStore implements PasskeyStore {
  private readonly Passkey: Model<PasskeyDocument>;

  constructor(private readonly context: MongoStoreContext) {
    const { Schema, connection } = context;
    const schema = new Schema<PasskeyDocument>(
      {
        _id: { type: String, required: true },
        userId: { type: String, required: true },
        credentialId: { type: Buffer, required: true },
        publicKey: { type: Buffer, required: true },
        counter: { type: Number, required: true },
        transports: { type: [String], default: [] },
        name: { type: String, required: true },
        createdAt: { type: Date, required: true },
        lastUsedAt: { type: Date, default: null },
      },
      { versionKey: false },
    );
    schema.index({ credentialId: 1 }, { unique: true, name: 'passkeys_credential_id' });
    schema.index({ userId: 1, createdAt: 1 }, { name: 'passkeys_user_created' });
    this.Passkey = connection.model<PasskeyDocument>('Passkey', schema, 'passkeys');
  }

  add(passkey: NewPasskey): Promise<PasskeyRecord> {
    return this.context.run(async () => {
      const record = newPasskeyRecord(passkey);
      const { id, ...rest } = record;
      await this.Passkey.create({ _id: id, ...rest });
      return record;
    });
  }

  findByCredentialId(credentialId: Buffer): Promise<PasskeyRecord | null> {
    return this.context.run(async () => {
      const doc = await this.Passkey.findOne({ credentialId })
        .maxTimeMS(this.context.timeoutMs)
        .lean<PasskeyDocument>()
        .exec();
      return doc ? toPasskey(doc) : null;
    });
  }

  listByUser(userId: string): Promise<PasskeyRecord[]> {
    return this.context.run(async () => {
      const docs = await this.Passkey.find({ userId })
        .sort({ createdAt: 1, _id: 1 })
        .limit(MAX_PASSKEYS_PER_USER)
        .maxTimeMS(this.context.timeoutMs)
        .lean<PasskeyDocument[]>()
        .exec();
      return docs.map(toPasskey);
    });
  }

  recordUse(id: string, counter: number, usedAt: Date): Promise<boolean> {
    return this.context.run(async () => {
      // One conditional update decides: a counter not above the stored one (a clone) changes nothing.
      const advanced = counter === 0 ? { counter: 0 } : { counter: { $lt: counter } };
      const result = await this.Passkey.updateOne(
        { _id: id, ...advanced },
        { $set: { counter, lastUsedAt: usedAt } },
      ).exec();
      return result.modifiedCount === 1 || (counter === 0 && result.matchedCount === 1);
    });
  }

  remove(userId: string, id: string): Promise<number> {
    return this.context.run(async () => (await this.Passkey.deleteOne({ _id: id, userId }).exec()).deletedCount);
  }

  removeUser(userId: string): Promise<number> {
    return this.context.run(async () => (await this.Passkey.deleteMany({ userId }).exec()).deletedCount);
  }
}
