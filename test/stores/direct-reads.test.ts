import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mfaStore, userStore } from '../../src/auth/stores/definitions';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { DatabaseError, type Sequelize } from 'sequelize';
import { createDatabase } from '../../src/stores/create-database';
import { DirectReads } from '../../src/stores/sql/direct-reads';

// The hot-path reads go through statements prepared on SQLite's own connection (direct-reads.ts). They must
// not keep the file open: an unfinalized statement makes SQLite refuse to close ("unable to close due to
// unfinalised statements"), which would fail every shutdown after one login; nor hold SQLite's shared lock
// after the read, which would make every write on another connection (a transaction) fail with SQLITE_BUSY.

const logger = createLogger({ env: 'test', logLevel: 'silent' });

describe('prepared reads on a SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'direct-reads-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const open = async () => {
    const database = createDatabase(loadConfig({ NODE_ENV: 'test', DATABASE_URL: `sqlite:${join(dir, 'app.sqlite')}` }), logger, [userStore, mfaStore], { cleanupJob: false, connectAttempts: 1 });
    await database.connect();
    await database.migrate();
    return database;
  };

  it('answer like the model, and close cleanly, twice over', async () => {
    for (const round of [1, 2]) {
      const database = await open();
      const users = database.store(userStore);
      const email = `round-${round}@example.com`;
      const created = await users.create({ email, passwordHash: 'hash', role: 'user', name: null });
      expect(await users.findByEmail(email.toUpperCase())).toEqual(created);
      expect(await users.findById(created.id)).toEqual(created);
      expect(await users.findById('no-such-id')).toBeNull();
      // A transaction runs on a connection of its own on a SQLite file: the reads above must have let go.
      const mfa = database.store(mfaStore);
      expect(await mfa.begin(created.id, 'sealed')).toBe(true);
      expect(await mfa.confirm(created.id, 'sealed', 1, ['d'.repeat(63) + String(round)])).toBe(true);
      await expect(database.close()).resolves.toBeUndefined();
    }
  });
});

describe('prepared reads on MySQL/MariaDB: a statement the server says is stale', () => {
  // What mysql2 is asked, on a stand-in connection: ER_NEED_REPREPARE (1615) cannot be made to happen on
  // demand on a real server (1243 is, in direct-reads-schema-change.test.ts); the path is the same.
  const SQL = 'SELECT `id` FROM `users` WHERE `id` = ?';
  function standIn(errors: (number | undefined)[]) {
    const calls: string[] = [];
    const connection = {
      execute(sql: string, _values: unknown[], callback: (error: Error | null, rows: unknown) => void) {
        calls.push(`execute ${sql}`);
        const errno = errors.shift();
        setImmediate(() => (errno ? callback(Object.assign(new Error(`errno ${errno}`), { errno }), undefined) : callback(null, [{ id: 'u1' }])));
      },
      unprepare(sql: string) {
        calls.push(`unprepare ${sql}`);
      },
    };
    const released: unknown[] = [];
    const sequelize = { connectionManager: { getConnection: async () => connection, releaseConnection: async (held: unknown) => void released.push(held) } };
    return { reads: new DirectReads(sequelize as unknown as Sequelize, 'mysql'), calls, released };
  }

  it.each([1615, 1243])('after %i: prepared again once on the same connection, and the read answers', async (errno) => {
    const { reads, calls, released } = standIn([errno]);
    await expect(reads.selectOne(SQL, ['u1'])).resolves.toEqual({ id: 'u1' });
    expect(calls).toEqual([`execute ${SQL}`, `unprepare ${SQL}`, `execute ${SQL}`]);
    expect(released).toHaveLength(1);
  });

  it('fails as any database error when the second try fails too (no loop), and releases the connection', async () => {
    const { reads, calls, released } = standIn([1615, 1615]);
    await expect(reads.selectOne(SQL, ['u1'])).rejects.toBeInstanceOf(DatabaseError);
    expect(calls.filter((call) => call.startsWith('execute'))).toHaveLength(2);
    expect(released).toHaveLength(1);
  });

  it('does not retry other errors (a missing table, 1146)', async () => {
    const { reads, calls } = standIn([1146]);
    await expect(reads.selectOne(SQL, ['u1'])).rejects.toBeInstanceOf(DatabaseError);
    expect(calls).toEqual([`execute ${SQL}`]);
  });
});
