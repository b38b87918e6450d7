import type { Model } from 'mongoose';
import { DuplicateKeyError } from '../../stores/errors';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { MfaRecord, MfaStore } from './mfa-store';

interface CredentialDocument {
  _id: string; // the user id: one credential per user
  secret: string;
  confirmed: boolean;
  lastStep: number | null;
}

interface RecoveryCodeDocument {
  _id: string; // the digest
  userId: string;
}

/**
 * Two-factor credentials on MongoDB (collections `mfa_credentials`, `mfa_recovery_codes`). Each step is one
 * atomic document operation; confirming writes the new codes before it flips `confirmed`, so a failure
 * between the two leaves an unconfirmed enrolment with unusable codes, never a confirmed one without codes.
 */
export class MongoMfaStore implements MfaStore {
  private readonly Credential: Model<CredentialDocument>;
  private readonly RecoveryCode: Model<RecoveryCodeDocument>;

  constructor(private readonly context: MongoStoreContext) {
    const { Schema, connection } = context;
    const credential = new Schema<CredentialDocument>(
      { _id: { type: String, required: true }, secret: { type: String, required: true }, confirmed: { type: Boolean, required: true }, lastStep: { type: Number, default: null } },
      { versionKey: false, timestamps: true },
    );
    const recoveryCode = new Schema<RecoveryCodeDocument>({ _id: { type: String, required: true }, userId: { type: String, required: true } }, { versionKey: false, timestamps: { createdAt: true, updatedAt: false } });
    recoveryCode.index({ userId: 1 }, { name: 'mfa_recovery_codes_user' });
    this.Credential = connection.model<CredentialDocument>('MfaCredential', credential, 'mfa_credentials');
    this.RecoveryCode = connection.model<RecoveryCodeDocument>('MfaRecoveryCode', recoveryCode, 'mfa_recovery_codes');
  }

  find(userId: string): Promise<MfaRecord | null> {
    return this.context.run(async () => {
      const doc = await this.Credential.findById(userId).maxTimeMS(this.context.timeoutMs).lean<CredentialDocument>().exec();
      return doc ? { userId, secret: doc.secret, confirmed: doc.confirmed, lastStep: doc.lastStep ?? null } : null;
    });
  }

  async begin(userId: string, secret: string): Promise<boolean> {
    try {
      return await this.context.run(async () => {
        await this.Credential.deleteOne({ _id: userId, confirmed: false }).exec();
        await this.Credential.create({ _id: userId, secret, confirmed: false, lastStep: null });
        return true;
      });
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false; // the confirmed credential kept its document
      throw error;
    }
  }

  confirm(userId: string, secret: string, step: number, recoveryDigests: readonly string[]): Promise<boolean> {
    return this.context.run(async () => {
      await this.RecoveryCode.deleteMany({ userId }).exec();
      await this.RecoveryCode.insertMany(recoveryDigests.map((digest) => ({ _id: digest, userId })));
      const result = await this.Credential.updateOne({ _id: userId, secret, confirmed: false }, { $set: { confirmed: true, lastStep: step } }).exec();
      if (result.modifiedCount === 1) return true;
      await this.RecoveryCode.deleteMany({ _id: { $in: [...recoveryDigests] }, userId }).exec();
      return false;
    });
  }

  useStep(userId: string, step: number): Promise<boolean> {
    return this.context.run(async () => {
      const result = await this.Credential.updateOne({ _id: userId, confirmed: true, $or: [{ lastStep: null }, { lastStep: { $lt: step } }] }, { $set: { lastStep: step } }).exec();
      return result.modifiedCount === 1;
    });
  }

  useRecoveryCode(userId: string, digest: string): Promise<boolean> {
    return this.context.run(async () => (await this.RecoveryCode.deleteOne({ _id: digest, userId }).exec()).deletedCount === 1);
  }

  recoveryCodesLeft(userId: string): Promise<number> {
    return this.context.run(() => this.RecoveryCode.countDocuments({ userId }).maxTimeMS(this.context.timeoutMs).exec());
  }

  reseal(userId: string, previous: string, next: string): Promise<void> {
    return this.context.run(async () => void (await this.Credential.updateOne({ _id: userId, secret: previous }, { $set: { secret: next } }).exec()));
  }

  remove(userId: string): Promise<boolean> {
    return this.context.run(async () => {
      await this.RecoveryCode.deleteMany({ userId }).exec();
      return (await this.Credential.deleteOne({ _id: userId }).exec()).deletedCount === 1;
    });
  }
}
