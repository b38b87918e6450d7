import mongoose from 'mongoose';
import { MongoPasskeyStore } from '../../src/auth/stores/mongo-passkey-store';
import type { MongoStoreContext } from '../../src/stores/kit/definition';

// What the passkey store asks of MongoDB, where no server runs here: a unique index on the credential id
// (BinData, compared as bytes), lookups by it and by user (bounded, oldest first), and the counter moved
// forward by one conditional update.

describe('MongoDB: what the passkey store asks of mongoose', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const context = {
    connection,
    timeoutMs: 1000,
    Schema: mongoose.Schema,
    run: (operation: () => Promise<unknown>) => operation(),
  } as unknown as MongoStoreContext;
  const store = new MongoPasskeyStore(context);
  const Passkey = connection.models.Passkey!;
  const chain = (result: unknown) => {
    const query = {
      maxTimeMS: () => query,
      lean: () => query,
      sort: () => query,
      limit: () => query,
      exec: async () => result,
    };
    return query;
  };
  const credentialId = Buffer.from([0, 1, 2, 255]);
  const at = new Date('2026-01-02T03:04:05.678Z');
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => connection.close());

  it('names the collection, and makes the credential id unique', () => {
    expect(Passkey.collection.collectionName).toBe('passkeys');
    expect(Passkey.schema.indexes()).toEqual([
      [{ credentialId: 1 }, expect.objectContaining({ unique: true, name: 'passkeys_credential_id' })],
      [{ userId: 1, createdAt: 1 }, expect.objectContaining({ name: 'passkeys_user_created' })],
    ]);
  });

  it('finds by the credential id’s bytes, and reads BSON Binary back as a Buffer', async () => {
    const binary = (bytes: Buffer) => new mongoose.mongo.Binary(bytes);
    const doc = {
      _id: 'p1',
      userId: 'u1',
      credentialId: binary(credentialId),
      publicKey: binary(Buffer.from([9])),
      counter: 3,
      transports: ['usb'],
      name: 'Key',
      createdAt: at,
      lastUsedAt: null,
    };
    const findOne = jest.spyOn(Passkey, 'findOne').mockReturnValue(chain(doc) as never);
    expect(await store.findByCredentialId(credentialId)).toEqual({
      id: 'p1',
      userId: 'u1',
      credentialId,
      publicKey: Buffer.from([9]),
      counter: 3,
      transports: ['usb'],
      name: 'Key',
      createdAt: at,
      lastUsedAt: null,
    });
    expect(findOne).toHaveBeenCalledWith({ credentialId });
  });

  it('lists a user’s passkeys bounded, oldest first', async () => {
    const find = jest.spyOn(Passkey, 'find').mockReturnValue(chain([]) as never);
    expect(await store.listByUser('u1')).toEqual([]);
    expect(find).toHaveBeenCalledWith({ userId: 'u1' });
  });

  it('moves the counter forward by one conditional update, and removes by user', async () => {
    const updateOne = jest
      .spyOn(Passkey, 'updateOne')
      .mockReturnValue(chain({ matchedCount: 0, modifiedCount: 0 }) as never);
    expect(await store.recordUse('p1', 7, at)).toBe(false);
    expect(await store.recordUse('p1', 0, at)).toBe(false);
    expect(updateOne.mock.calls).toEqual([
      [{ _id: 'p1', counter: { $lt: 7 } }, { $set: { counter: 7, lastUsedAt: at } }],
      [{ _id: 'p1', counter: 0 }, { $set: { counter: 0, lastUsedAt: at } }],
    ]);
    const deleteOne = jest.spyOn(Passkey, 'deleteOne').mockReturnValue(chain({ deletedCount: 1 }) as never);
    const deleteMany = jest.spyOn(Passkey, 'deleteMany').mockReturnValue(chain({ deletedCount: 2 }) as never);
    expect(await store.remove('u1', 'p1')).toBe(1);
    expect(await store.removeUser('u1')).toBe(2);
    expect(deleteOne).toHaveBeenCalledWith({ _id: 'p1', userId: 'u1' });
    expect(deleteMany).toHaveBeenCalledWith({ userId: 'u1' });
  });
});
