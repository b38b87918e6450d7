import mongoose from 'mongoose';
import { DataTypes, Sequelize, Transaction } from 'sequelize';
import { keepsAWayIn } from '../../src/auth/sign-in-methods';
import { MongoIdentityStore } from '../../src/auth/stores/mongo-identity-store';
import { MongoPasskeyStore } from '../../src/auth/stores/mongo-passkey-store';
import { MongoSignInMethodStore } from '../../src/auth/stores/mongo-sign-in-method-store';
import { MongoUserStore } from '../../src/auth/stores/mongo-user-store';
import { SqlIdentityStore } from '../../src/auth/stores/sql-identity-store';
import { SqlPasskeyStore } from '../../src/auth/stores/sql-passkey-store';
import { SqlSignInMethodStore } from '../../src/auth/stores/sql-sign-in-method-store';
import { SqlUserStore } from '../../src/auth/stores/sql-user-store';
import type { MongoStoreContext, SqlStoreContext } from '../../src/stores/kit/definition';

// What the sign-in method guard asks of the engines where no server runs here (PostgreSQL, MariaDB and SQLite
// run it for real: test/auth/sign-in-method-races.test.ts). SQL Server: the user's row read with UPDLOCK inside
// the transaction, before anything is counted. MongoDB: a lease claimed in the user document by one conditional
// update, then the count, the delete only of what leaves a way in, and the release of that lease by its token.

describe('SQL Server: the user row is locked before the ways in are counted', () => {
  it('reads the password hash WITH (UPDLOCK) in the transaction', async () => {
    const sequelize = new Sequelize({
      dialect: 'mssql',
      logging: false,
      host: '127.0.0.1',
      dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} },
    });
    const statements: string[] = [];
    sequelize.query = (async (sql: string | { query: string }, options?: { type?: string }) => {
      statements.push(typeof sql === 'string' ? sql : sql.query);
      return options?.type === 'SELECT' ? [] : [[], 0]; // no rows
    }) as typeof sequelize.query;
    const transaction = { LOCK: Transaction.LOCK } as unknown as Transaction;
    const context = {
      sequelize,
      DataTypes,
      engine: 'mssql',
      timeoutMs: 1000,
      run: (operation: () => Promise<unknown>) => operation(),
      transaction: (work: (t: Transaction) => Promise<unknown>) => work(transaction),
    } as unknown as SqlStoreContext;
    for (const Store of [SqlUserStore, SqlPasskeyStore, SqlIdentityStore]) new Store(context);
    const store = new SqlSignInMethodStore(context);
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({ outcome: 'not-found' }); // no row: nobody to lock
    // Sequelize's own `lock` writes nothing on SQL Server: the store writes the hint itself.
    expect(statements).toEqual([
      'SELECT [password_hash] AS [passwordHash] FROM [users] WITH (UPDLOCK, ROWLOCK) WHERE [id] = :id',
    ]);
  });
});

describe('MongoDB: claim the lease, count, delete, release', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const context = {
    connection,
    timeoutMs: 1000,
    Schema: mongoose.Schema,
    run: (operation: () => Promise<unknown>) => operation(),
    recordSchema: (fields: mongoose.SchemaDefinition) =>
      new mongoose.Schema({ _id: String, ...fields }, { timestamps: true }),
  } as unknown as MongoStoreContext;
  new MongoUserStore(context);
  new MongoPasskeyStore(context);
  new MongoIdentityStore(context);
  const store = new MongoSignInMethodStore(context, { waitMs: 200, pollMs: 1 });
  const { User, Passkey, LinkedIdentity } = connection.models as Record<string, mongoose.Model<unknown>>;
  /** Every call, in order: what each mock was asked, and the maxTimeMS it was given. */
  let calls: unknown[][] = [];
  const chain =
    (name: string, result: () => unknown) =>
    (...args: unknown[]) => {
      const call = [name, ...args];
      calls.push(call);
      const query = {
        maxTimeMS: (ms: number) => (call.push({ maxTimeMS: ms }), query),
        lean: () => query,
        exec: async () => result(),
      };
      return query as never;
    };
  const driver =
    (name: string, result: () => unknown) =>
    async (...args: unknown[]) =>
      (calls.push([name, ...args]), result()) as never;
  const at = new Date('2026-01-02T03:04:05.678Z');
  const key = {
    _id: 'p1',
    userId: 'u1',
    credentialId: Buffer.from([1]),
    publicKey: Buffer.from([2]),
    counter: 0,
    transports: [],
    name: 'Phone',
    createdAt: at,
    lastUsedAt: null,
  };
  const claimFilter = {
    _id: 'u1',
    $or: [
      { signInMethodsLease: { $exists: false } },
      { $expr: { $lt: ['$signInMethodsLease.at', { $subtract: ['$$NOW', 5000] }] } },
    ],
  };
  const claimUpdate = {
    $set: { 'signInMethodsLease.token': expect.any(String) },
    $currentDate: { 'signInMethodsLease.at': true },
  };
  const claim = ['claim', claimFilter, claimUpdate, { projection: { passwordHash: 1 }, maxTimeMS: 1000 }];
  const release = [
    'release',
    { _id: 'u1', 'signInMethodsLease.token': expect.any(String) },
    { $unset: { signInMethodsLease: '' } },
    { maxTimeMS: 1000 },
  ];
  const counts = [
    ['passkeys', { userId: 'u1' }, { maxTimeMS: 1000 }],
    ['identities', { userId: 'u1' }, { maxTimeMS: 1000 }],
  ];
  const mock = (
    claims: unknown[],
    options: { passkeys?: unknown[]; passkeysFail?: Error; deleteFail?: Error } = {},
  ) => {
    let claimed = 0;
    jest
      .spyOn(User!.collection, 'findOneAndUpdate')
      .mockImplementation(driver('claim', () => claims[Math.min(claimed++, claims.length - 1)]));
    jest.spyOn(User!.collection, 'updateOne').mockImplementation(driver('release', () => ({ modifiedCount: 1 })));
    jest.spyOn(User!, 'exists').mockImplementation(chain('exists', () => ({ _id: 'u1' })));
    jest.spyOn(Passkey!, 'find').mockImplementation(
      chain('passkeys', () => {
        if (options.passkeysFail) throw options.passkeysFail;
        return options.passkeys ?? [key, { ...key, _id: 'p2' }];
      }),
    );
    jest.spyOn(LinkedIdentity!, 'find').mockImplementation(chain('identities', () => []));
    jest.spyOn(Passkey!, 'deleteOne').mockImplementation(
      chain('delete', () => {
        if (options.deleteFail) throw options.deleteFail;
        return { deletedCount: 1 };
      }),
    );
  };
  beforeEach(() => (calls = []));
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => connection.close());

  it('claims the user with one conditional update, counts, deletes, then releases its own lease', async () => {
    mock([{ passwordHash: '!none' }]);
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({
      outcome: 'removed',
      passkeys: [expect.objectContaining({ id: 'p1', name: 'Phone' })],
      identities: [],
    });
    expect(calls).toEqual([claim, ...counts, ['delete', { _id: 'p1', userId: 'u1' }, { maxTimeMS: 1000 }], release]);
    const token = (calls[0]![2] as { $set: Record<string, string> }).$set['signInMethodsLease.token'];
    expect(calls[4]![1]).toEqual({ _id: 'u1', 'signInMethodsLease.token': token }); // only its own lease
  });

  it('a claim lost to another removal is tried again, and the second counts what the first left', async () => {
    mock([null, { passwordHash: '!none' }], { passkeys: [key] });
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({ outcome: 'last-way' });
    expect(calls).toEqual([claim, ['exists', { _id: 'u1' }, { maxTimeMS: 1000 }], claim, ...counts, release]); // nothing deleted, nothing to put back
  });

  it('answers busy when the lease stays held past the wait, and not-found for no such user, having changed nothing', async () => {
    mock([null]);
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({ outcome: 'busy' });
    expect(new Set(calls.map(([name]) => name))).toEqual(new Set(['claim', 'exists']));
    expect(calls.length).toBeGreaterThan(4); // it waited and claimed again
    jest.restoreAllMocks();
    calls = [];
    mock([null]);
    jest.spyOn(User!, 'exists').mockImplementation(chain('exists', () => null));
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({ outcome: 'not-found' });
    expect(calls.map(([name]) => name)).toEqual(['claim', 'exists']);
  });

  it('releases the lease when counting fails, and leaves it to run out when a delete went unanswered', async () => {
    mock([{ passwordHash: '!none' }], { passkeysFail: new Error('count failed') });
    await expect(store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).rejects.toThrow('count failed');
    expect(calls.map(([name]) => name)).toEqual(['claim', 'passkeys', 'release']);
    jest.restoreAllMocks();
    calls = [];
    mock([{ passwordHash: '!none' }], { deleteFail: new Error('connection lost') });
    await expect(store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).rejects.toThrow('connection lost');
    expect(calls.map(([name]) => name)).toEqual(['claim', 'passkeys', 'identities', 'delete']); // it may yet land: no one else may count before
  });

  it('does not delete when the lease is too old to be sure of outlasting the delete (5 s lease, 1 s timeout: 3 s in)', async () => {
    mock([{ passwordHash: '!none' }]);
    let now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    jest.spyOn(LinkedIdentity!, 'find').mockImplementation(chain('identities', () => ((now = 3_000), [])));
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({ outcome: 'busy' });
    expect(calls.map(([name]) => name)).toEqual(['claim', 'passkeys', 'identities', 'release']);
  });

  it('a failed release does not turn a removal into an error (the lease runs out)', async () => {
    mock([{ passwordHash: '!none' }]);
    jest.spyOn(User!.collection, 'updateOne').mockRejectedValue(new Error('no primary'));
    expect(await store.removeUnlessLast('u1', { issuer: 'https://idp.example.com' }, keepsAWayIn)).toEqual({
      outcome: 'not-found',
    });
  });
});
