import mongoose from 'mongoose';
import { MongoIdentityStore } from '../../src/auth/stores/mongo-identity-store';
import type { MongoStoreContext } from '../../src/stores/kit/definition';

// What the linked-identity store asks of MongoDB, where no server runs here (the contract suite runs it
// wherever a container can be had): a unique index on (issuer, subject), the lookups and removals by it
// and by user.

describe('MongoDB: what the linked-identity store asks of mongoose', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const context = {
    connection,
    timeoutMs: 1000,
    Schema: mongoose.Schema,
    run: (operation: () => Promise<unknown>) => operation(),
  } as unknown as MongoStoreContext;
  const store = new MongoIdentityStore(context);
  const Identity = connection.models.LinkedIdentity!;
  const chain = (result: unknown) => {
    const query = { maxTimeMS: () => query, lean: () => query, sort: () => query, exec: async () => result };
    return query;
  };
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => connection.close());

  it('names the collection, and makes (issuer, subject) unique', () => {
    expect(Identity.collection.collectionName).toBe('linked_identities');
    expect(Identity.schema.indexes()).toEqual([
      [{ issuer: 1, subject: 1 }, expect.objectContaining({ unique: true, name: 'linked_identities_issuer_subject' })],
      [{ userId: 1 }, expect.objectContaining({ name: 'linked_identities_user' })],
    ]);
  });

  it('finds by (issuer, subject) within the time bound, and reads the link date', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const findOne = jest
      .spyOn(Identity, 'findOne')
      .mockReturnValue(
        chain({ issuer: 'https://idp', subject: 's', userId: 'u1', provider: 'corp', createdAt: at }) as never,
      );
    expect(await store.find('https://idp', 's')).toEqual({
      issuer: 'https://idp',
      subject: 's',
      userId: 'u1',
      provider: 'corp',
      linkedAt: at,
    });
    expect(findOne).toHaveBeenCalledWith({ issuer: 'https://idp', subject: 's' });
  });

  it('unlinks one issuer of one user, and removes every identity of a user', async () => {
    const deleteMany = jest.spyOn(Identity, 'deleteMany').mockReturnValue(chain({ deletedCount: 2 }) as never);
    expect(await store.unlink('u1', 'https://idp')).toBe(2);
    expect(await store.removeUser('u1')).toBe(2);
    expect(deleteMany.mock.calls).toEqual([[{ userId: 'u1', issuer: 'https://idp' }], [{ userId: 'u1' }]]);
  });

  it('links with the creation date', async () => {
    const create = jest.spyOn(Identity, 'create').mockResolvedValue({} as never);
    const linked = await store.link({ issuer: 'https://idp', subject: 's', userId: 'u1', provider: 'corp' });
    expect(create).toHaveBeenCalledWith({
      issuer: 'https://idp',
      subject: 's',
      userId: 'u1',
      provider: 'corp',
      createdAt: linked.linkedAt,
    });
  });
});
