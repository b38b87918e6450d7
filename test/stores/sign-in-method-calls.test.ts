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
// the transaction, before anything is counted. MongoDB: count, delete, then the compare-and-set of the user
// document's signInMethodsVersion; a lost compare-and-set puts the passkey back and counts again.

describe('SQL Server: the user row is locked before the ways in are counted', () => {
  it('reads the password hash WITH (UPDLOCK) in the transaction', async () => {
    const sequelize = new Sequelize({ dialect: 'mssql', logging: false, host: '127.0.0.1', dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} } });
    const statements: string[] = [];
    sequelize.query = (async (sql: string | { query: string }, options?: { type?: string }) => {
      statements.push(typeof sql === 'string' ? sql : sql.query);
      return options?.type === 'SELECT' ? [] : [[], 0]; // no rows
    }) as typeof sequelize.query;
    const transaction = { LOCK: Transaction.LOCK } as unknown as Transaction;
    const context = { sequelize, DataTypes, engine: 'mssql', timeoutMs: 1000, run: (operation: () => Promise<unknown>) => operation(), transaction: (work: (t: Transaction) => Promise<unknown>) => work(transaction) } as unknown as SqlStoreContext;
    for (const Store of [SqlUserStore, SqlPasskeyStore, SqlIdentityStore]) new Store(context);
    const store = new SqlSignInMethodStore(context);
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({ outcome: 'not-found' }); // no row: nobody to lock
    // Sequelize's own `lock` writes nothing on SQL Server: the store writes the hint itself.
    expect(statements).toEqual(["SELECT [password_hash] AS [passwordHash] FROM [users] WITH (UPDLOCK, ROWLOCK) WHERE [id] = :id"]);
  });
});

describe('MongoDB: count, delete, compare-and-set', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const context = { connection, timeoutMs: 1000, Schema: mongoose.Schema, run: (operation: () => Promise<unknown>) => operation(), recordSchema: (fields: mongoose.SchemaDefinition) => new mongoose.Schema({ _id: String, ...fields }, { timestamps: true }) } as unknown as MongoStoreContext;
  new MongoUserStore(context);
  new MongoPasskeyStore(context);
  new MongoIdentityStore(context);
  const store = new MongoSignInMethodStore(context);
  const { User, Passkey, LinkedIdentity } = connection.models as Record<string, mongoose.Model<unknown>>;
  const chain = (result: unknown) => {
    const query = { maxTimeMS: () => query, lean: () => query, exec: async () => result };
    return query;
  };
  const at = new Date('2026-01-02T03:04:05.678Z');
  const key = { _id: 'p1', userId: 'u1', credentialId: Buffer.from([1]), publicKey: Buffer.from([2]), counter: 0, transports: [], name: 'Phone', createdAt: at, lastUsedAt: null };
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => connection.close());

  it('deletes, then moves the version from the value it read; a lost round puts the passkey back and counts again', async () => {
    const findOne = jest.spyOn(User!, 'findOne').mockReturnValueOnce(chain({ passwordHash: '!none' }) as never).mockReturnValueOnce(chain({ passwordHash: '!none', signInMethodsVersion: 1 }) as never);
    jest.spyOn(Passkey!, 'find').mockReturnValueOnce(chain([key, { ...key, _id: 'p2' }]) as never).mockReturnValueOnce(chain([key]) as never);
    jest.spyOn(LinkedIdentity!, 'find').mockReturnValue(chain([]) as never);
    const deleteOne = jest.spyOn(Passkey!, 'deleteOne').mockReturnValue(chain({ deletedCount: 1 }) as never);
    const updateOne = jest.spyOn(User!, 'updateOne').mockReturnValueOnce(chain({ modifiedCount: 0 }) as never);
    const create = jest.spyOn(Passkey!, 'create').mockResolvedValue({} as never);
    // Round one: two passkeys, one may go; the compare-and-set from version 0 (or none) is lost: put back.
    // Round two: the other removal won meanwhile (version 1), one passkey is left: the last way in stays.
    expect(await store.removeUnlessLast('u1', { passkeyId: 'p1' }, keepsAWayIn)).toEqual({ outcome: 'last-way' });
    expect(findOne).toHaveBeenCalledWith({ _id: 'u1' }, { passwordHash: 1, signInMethodsVersion: 1 }, { strict: false, strictQuery: false });
    expect(deleteOne).toHaveBeenCalledTimes(1);
    expect(deleteOne).toHaveBeenCalledWith({ _id: 'p1', userId: 'u1' });
    expect(updateOne).toHaveBeenCalledWith({ _id: 'u1', signInMethodsVersion: { $in: [0, null] } }, { $inc: { signInMethodsVersion: 1 } }, { strict: false, strictQuery: false });
    expect(create).toHaveBeenCalledWith(expect.objectContaining({ _id: 'p1', userId: 'u1', name: 'Phone' }));
  });
});
