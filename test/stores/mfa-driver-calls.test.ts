import mongoose from 'mongoose';
import { MongoMfaStore } from '../../src/auth/stores/mongo-mfa-store';
import type { MongoStoreContext } from '../../src/stores/kit/definition';
import { DuplicateKeyError } from '../../src/stores/errors';

// What the two-factor store asks of MongoDB, where no server runs here (the contract suite runs it wherever
// a container can be had): each step one atomic document operation, with the conditions that make a time
// step and a recovery code single-use.

describe('MongoDB: what the mfa store asks of mongoose', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const context = {
    connection,
    timeoutMs: 1000,
    Schema: mongoose.Schema,
    run: (operation: () => Promise<unknown>) => operation(),
  } as unknown as MongoStoreContext;
  const store = new MongoMfaStore(context);
  const Credential = connection.models.MfaCredential!;
  const answering = (result: unknown) => ({ exec: async () => result });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => connection.close());

  it('keeps the recovery codes in the credential document: one collection, no other model', () => {
    expect(Credential.collection.collectionName).toBe('mfa_credentials');
    expect(Credential.schema.path('recoveryCodes').instance).toBe('Array');
    expect(Object.keys(connection.models)).toEqual(['MfaCredential']);
  });

  it('accepts a time step with one conditional update: confirmed, and later than the last step', async () => {
    const update = jest.spyOn(Credential, 'updateOne').mockReturnValue(answering({ modifiedCount: 0 }) as never);
    expect(await store.useStep('u1', 42)).toBe(false);
    expect(update).toHaveBeenCalledWith(
      { _id: 'u1', confirmed: true, $or: [{ lastStep: null }, { lastStep: { $lt: 42 } }] },
      { $set: { lastStep: 42 } },
    );
  });

  it("uses a recovery code with one conditional pull of that digest from that user's credential", async () => {
    const update = jest.spyOn(Credential, 'updateOne').mockReturnValue(answering({ modifiedCount: 1 }) as never);
    expect(await store.useRecoveryCode('u1', 'd1')).toBe(true);
    expect(update).toHaveBeenCalledWith({ _id: 'u1', recoveryCodes: 'd1' }, { $pull: { recoveryCodes: 'd1' } });
  });

  it('confirms with one conditional update that stores the codes with the flip: racing confirmations, one winner, its codes', async () => {
    const updates = jest
      .spyOn(Credential, 'updateOne')
      .mockReturnValueOnce(answering({ modifiedCount: 1 }) as never)
      .mockReturnValueOnce(answering({ modifiedCount: 0 }) as never);
    const writes = (['deleteOne', 'deleteMany', 'insertMany', 'create', 'bulkWrite', 'findOneAndUpdate'] as const).map(
      (name) => jest.spyOn(Credential, name as 'deleteOne'),
    );
    expect(
      await Promise.all([
        store.confirm('u1', 'sealed', 7, ['a1', 'a2']),
        store.confirm('u1', 'sealed', 7, ['b1', 'b2']),
      ]),
    ).toEqual([true, false]);
    expect(updates.mock.calls).toEqual([
      [
        { _id: 'u1', secret: 'sealed', confirmed: false },
        { $set: { confirmed: true, lastStep: 7, recoveryCodes: ['a1', 'a2'] } },
      ],
      [
        { _id: 'u1', secret: 'sealed', confirmed: false },
        { $set: { confirmed: true, lastStep: 7, recoveryCodes: ['b1', 'b2'] } },
      ],
    ]);
    for (const write of writes) expect(write).not.toHaveBeenCalled(); // nothing the losing confirmation could undo the winner's codes with
  });

  it('counts the codes left from the credential, under the store deadline', async () => {
    const projections: unknown[] = [];
    let deadline: unknown;
    const query = {
      maxTimeMS: (ms: number) => ((deadline = ms), query),
      lean: () => query,
      exec: async () => ({ recoveryCodes: ['d1', 'd2', 'd3'] }),
    };
    jest
      .spyOn(Credential, 'findById')
      .mockImplementation(((id: unknown, projection: unknown) => (projections.push([id, projection]), query)) as never);
    expect(await store.recoveryCodesLeft('u1')).toBe(3);
    expect(projections).toEqual([['u1', { recoveryCodes: 1 }]]);
    expect(deadline).toBe(1000);
  });

  it('removes the credential, codes included, with one delete', async () => {
    const remove = jest.spyOn(Credential, 'deleteOne').mockReturnValue(answering({ deletedCount: 1 }) as never);
    expect(await store.remove('u1')).toBe(true);
    expect(remove).toHaveBeenCalledWith({ _id: 'u1' });
  });

  it('begins an enrolment by replacing only an unconfirmed credential; a confirmed one makes the insert a duplicate', async () => {
    const remove = jest.spyOn(Credential, 'deleteOne').mockReturnValue(answering({ deletedCount: 0 }) as never);
    jest.spyOn(Credential, 'create').mockRejectedValue(new DuplicateKeyError() as never);
    expect(await store.begin('u1', 'sealed')).toBe(false);
    expect(remove).toHaveBeenCalledWith({ _id: 'u1', confirmed: false });
  });
});
