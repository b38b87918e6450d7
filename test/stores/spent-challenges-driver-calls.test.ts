import mongoose from 'mongoose';
import { SpentChallenges } from '../../src/auth/mfa/spent-challenges';
import { MongoAccountTokenStore } from '../../src/auth/stores/mongo-account-token-store';
import type { MongoStoreContext } from '../../src/stores/kit/definition';
import { translateMongoError } from '../../src/stores/mongo/mongo-errors';

// What spending an mfaToken asks of MongoDB, where no server runs here: one insert whose `_id` is the token's
// digest, so a second or racing insert fails on the key (E11000) — which the store kit turns into
// DuplicateKeyError and SpentChallenges into "spent already". The relational engines run the same flow
// over HTTP (test/auth/two-factor.test.ts: two racing verifies, exactly one success).

describe('MongoDB: spending an mfaToken is one insert on the _id', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const run = (operation: () => Promise<unknown>) =>
    operation().catch((error: unknown) => Promise.reject(translateMongoError(error))); // as the kit's context does
  const context = { connection, timeoutMs: 1000, Schema: mongoose.Schema, run } as unknown as MongoStoreContext;
  const spent = new SpentChallenges(new MongoAccountTokenStore(context));
  const Token = connection.models.AccountToken!;
  const challenge = {
    userId: 'u1',
    sessionVersion: 0,
    id: '0f8e2c5a-3c7d-4c1e-9a53-6a3f0d1b2c4e',
    expiresAt: new Date('2030-01-01T00:05:00Z'),
  };
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => connection.close());

  it('inserts the digest as _id, with the user, the purpose and the token’s expiry (the TTL index removes it after)', async () => {
    const create = jest.spyOn(Token, 'create').mockResolvedValue({} as never);
    expect(await spent.spend(challenge)).toBe(true);
    expect(create).toHaveBeenCalledWith({
      _id: expect.stringMatching(/^[0-9a-f]{64}$/),
      userId: 'u1',
      purpose: 'spent-mfa-challenge',
      expiresAt: challenge.expiresAt,
    });
    expect(JSON.stringify(create.mock.calls)).not.toContain(challenge.id); // a digest of the id, not the id
    expect(Token.schema.indexes()).toContainEqual([
      { expiresAt: 1 },
      expect.objectContaining({ expireAfterSeconds: 0 }),
    ]);
  });

  it('answers false when the insert hits the key (spent already, or a racing verify won)', async () => {
    const duplicate = Object.assign(
      new Error('E11000 duplicate key error collection: app.account_tokens index: _id_'),
      { name: 'MongoServerError', code: 11000 },
    );
    jest.spyOn(Token, 'create').mockRejectedValue(duplicate as never);
    expect(await spent.spend(challenge)).toBe(false);
  });

  it('lets any other failure through (a store outage is no verdict on the token)', async () => {
    jest
      .spyOn(Token, 'create')
      .mockRejectedValue(Object.assign(new Error('no primary'), { name: 'MongoServerSelectionError' }) as never);
    await expect(spent.spend(challenge)).rejects.toMatchObject({ name: 'StoreUnavailableError' });
  });

  it('gives the token back (a wrong code) by deleting its digest under its purpose', async () => {
    const findOneAndDelete = jest
      .spyOn(Token, 'findOneAndDelete')
      .mockReturnValue({ maxTimeMS: () => ({ lean: () => ({ exec: async () => null }) }) } as never);
    await spent.giveBack(challenge);
    expect(findOneAndDelete).toHaveBeenCalledWith({
      _id: expect.stringMatching(/^[0-9a-f]{64}$/),
      purpose: 'spent-mfa-challenge',
      expiresAt: { $gt: expect.any(Date) },
    });
  });
});
