import type { Model } from 'mongoose';
import { DuplicateKeyError } from '../../stores/errors';
import type { MongoStoreContext } from '../../stores/kit/definition';
import type { MfaRecord, MfaStore } from './mfa-store';

interface CredentialDocument {
  _id: string; // the user id: one credential per user
  secret: string;
  confirmed: boolean;
  lastStep: number | null;
  /** The digests of the unused recovery codes: set by the confirmation itself, pulled one by one as used. */
  recoveryCodes: string[];
}

/**
 * Two-factor credentials on MongoDB (collection `mfa_credentials`). The recovery codes' digests live in the
 * credential's own document, so that every step is one atomic single-document operation without a replica
 * set: of two racing confirmations of one enrolment exactly one flips `confirmed`, and the codes stored are
 * the ones that confirmation was given (codes in a collection of their own were written before the flip,
 * where a racing confirmation could replace them: a confirmed factor whose shown codes did not work).
 */
export class MongoMfaStore implements MfaStore {
  private readonly Credential: Model<CredentialDocument>;

  constructor(private readonly context: MongoStoreContext) {
    const { Schema, connection } = context;
    const credential = new Schema<CredentialDocument>(
      {
        _id: { type: String, required: true },
        secret: { type: String, required: true },
        confirmed: { type: Boolean, required: true },
        lastStep: { type: Number, default: null },
        recoveryCodes: { type: [String], default: [] },
      },
      { versionKey: false, timestamps: true },
    );
    this.Credential = connection.model<CredentialDocument>('MfaCredential', credential, 'mfa_credentials');
  }

  find(userId: string): Promise<MfaRecord | null> {
    return this.context.run(async () => {
      const doc = await this.Credential.findById(userId)
        .maxTimeMS(this.context.timeoutMs)
        .lean<CredentialDocument>()
        .exec();
      return doc ? { userId, secret: doc.secret, confirmed: doc.confirmed, lastStep: doc.lastStep ?? null } : null;
    });
  }

  async begin(userId: string, secret: string): Promise<boolean> {
    try {
      return await this.context.run(async () => {
        await this.Credential.deleteOne({ _id: userId, confirmed: false }).exec();
        await this.Credential.create({ _id: userId, secret, confirmed: false, lastStep: null, recoveryCodes: [] });
        return true;
      });
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false; // the confirmed credential kept its document
      throw error;
    }
  }

  confirm(userId: string, secret: string, step: number, recoveryDigests: readonly string[]): Promise<boolean> {
    return this.context.run(async () => {
      const change = { $set: { confirmed: true, lastStep: step, recoveryCodes: [...recoveryDigests] } };
      return (
        (await this.Credential.updateOne({ _id: userId, secret, confirmed: false }, change).exec()).modifiedCount === 1
      );
    });
  }

  useStep(userId: string, step: number): Promise<boolean> {
    return this.context.run(async () => {
      const result = await this.Credential.updateOne(
        { _id: userId, confirmed: true, $or: [{ lastStep: null }, { lastStep: { $lt: step } }] },
        { $set: { lastStep: step } },
      ).exec();
      return result.modifiedCount === 1;
    });
  }

  useRecoveryCode(userId: string, digest: string): Promise<boolean> {
    // One conditional $pull: of racing uses of one code, only the one that found it there modifies the document.
    return this.context.run(async () => {
      const result = await this.Credential.updateOne(
        { _id: userId, recoveryCodes: digest },
        { $pull: { recoveryCodes: digest } },
      ).exec();
      return result.modifiedCount === 1;
    });
  }

  recoveryCodesLeft(userId: string): Promise<number> {
    return this.context.run(async () => {
      const doc = await this.Credential.findById(userId, { recoveryCodes: 1 })
        .maxTimeMS(this.context.timeoutMs)
        .lean<Pick<CredentialDocument, 'recoveryCodes'>>()
        .exec();
      return doc?.recoveryCodes?.length ?? 0;
    });
  }

  replaceRecoveryCodes(userId: string, recoveryDigests: readonly string[]): Promise<boolean> {
    // One update of the credential's document: the codes it holds are replaced whole.
    return this.context.run(async () => {
      const result = await this.Credential.updateOne(
        { _id: userId, confirmed: true },
        { $set: { recoveryCodes: [...recoveryDigests] } },
      ).exec();
      return result.matchedCount === 1;
    });
  }

  reseal(userId: string, previous: string, next: string): Promise<void> {
    return this.context.run(
      async () =>
        void (await this.Credential.updateOne({ _id: userId, secret: previous }, { $set: { secret: next } }).exec()),
    );
  }

  remove(userId: string): Promise<boolean> {
    return this.context.run(async () => (await this.Credential.deleteOne({ _id: userId }).exec()).deletedCount === 1);
  }
}
