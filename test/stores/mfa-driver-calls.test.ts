import mongoose from 'mongoose';
import { MongoMfaStore } from '../../src/auth/stores/mongo-mfa-store';
import type { MongoStoreContext } from '../../src/stores/kit/definition';
import { DuplicateKeyError } from '../../src/stores/errors';

// What the two-factor store asks of MongoDB, where no server runs here (the contract suite runs it wherever
// a container can be had): each step one atomic document operation, with the conditions that make a time
// step and a recovery code single-use.

describe('MongoDB: what the mfa store asks of mongoose', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const context = { connection, timeoutMs: 1000, Schema: mongoose.Schema, run: (operation: () => Promise<unknown>) => operation() } as unknown as MongoStoreContext;
  const store = new MongoMfaStore(context);
  const Credential = connection.models.MfaCredential!;
  const RecoveryCode = connection.models.MfaRecoveryCode!;
  const answering = (result: unknown) => ({ exec: async () => result });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => connection.close());

  it('names the collections and indexes the recovery codes by user', () => {
    expect(Credential.collection.collectionName).toBe('mfa_credentials');
    expect(RecoveryCode.collection.collectionName).toBe('mfa_recovery_codes');
    expect(RecoveryCode.schema.indexes()).toEqual([[{ userId: 1 }, expect.objectContaining({ name: 'mfa_recovery_codes_user' })]]);
  });

  it('accepts a time step with one conditional update: confirmed, and later than the last step', async () => {
    const update = jest.spyOn(Credential, 'updateOne').mockReturnValue(answering({ modifiedCount: 0 }) as never);
    expect(await store.useStep('u1', 42)).toBe(false);
    expect(update).toHaveBeenCalledWith({ _id: 'u1', confirmed: true, $or: [{ lastStep: null }, { lastStep: { $lt: 42 } }] }, { $set: { lastStep: 42 } });
  });

  it('uses a recovery code with one delete of that digest for that user', async () => {
    const remove = jest.spyOn(RecoveryCode, 'deleteOne').mockReturnValue(answering({ deletedCount: 1 }) as never);
    expect(await store.useRecoveryCode('u1', 'd1')).toBe(true);
    expect(remove).toHaveBeenCalledWith({ _id: 'd1', userId: 'u1' });
  });

  it('confirms after writing the codes, and takes the codes back when the pending secret changed meanwhile', async () => {
    const calls: string[] = [];
    jest.spyOn(RecoveryCode, 'deleteMany').mockImplementation(((filter: unknown) => (calls.push(`deleteMany ${JSON.stringify(filter)}`), answering({ deletedCount: 0 }))) as never);
    jest.spyOn(RecoveryCode, 'insertMany').mockImplementation((async (docs: unknown) => void calls.push(`insertMany ${JSON.stringify(docs)}`)) as never);
    jest.spyOn(Credential, 'updateOne').mockImplementation(((filter: unknown) => (calls.push(`updateOne ${JSON.stringify(filter)}`), answering({ modifiedCount: 0 }))) as never);
    expect(await store.confirm('u1', 'sealed', 7, ['d1', 'd2'])).toBe(false);
    expect(calls).toEqual([
      'deleteMany {"userId":"u1"}',
      'insertMany [{"_id":"d1","userId":"u1"},{"_id":"d2","userId":"u1"}]',
      'updateOne {"_id":"u1","secret":"sealed","confirmed":false}',
      'deleteMany {"_id":{"$in":["d1","d2"]},"userId":"u1"}',
    ]);
  });

  it('begins an enrolment by replacing only an unconfirmed credential; a confirmed one makes the insert a duplicate', async () => {
    const remove = jest.spyOn(Credential, 'deleteOne').mockReturnValue(answering({ deletedCount: 0 }) as never);
    jest.spyOn(Credential, 'create').mockRejectedValue(new DuplicateKeyError() as never);
    expect(await store.begin('u1', 'sealed')).toBe(false);
    expect(remove).toHaveBeenCalledWith({ _id: 'u1', confirmed: false });
  });
});
