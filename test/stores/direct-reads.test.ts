import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mfaStore, userStore } from '../../src/auth/stores/definitions';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { DatabaseError, QueryTypes, type Sequelize } from 'sequelize';
import sqlite3 from 'sqlite3';
import { createDatabase } from '../../src/stores/create-database';
import { DriverStatements } from '../../src/stores/sql/driver-statements';
import type { Database } from '../../src/stores/types';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import type { DatabaseUserStore, UserRecord } from '../../src/auth/stores/user-store';

// The hot-path reads go through statements prepared on SQLite's own connection (direct-reads.ts). They must
// not keep the file open: an unfinalized statement makes SQLite refuse to close ("unable to close due to
// unfinalised statements"), which would fail every shutdown after one login; nor hold SQLite's shared lock
// after the read, which would make every write on another connection (a transaction) fail with SQLITE_BUSY.

const logger = createLogger({ env: 'test', logLevel: 'silent' });

describe('prepared reads on a SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'direct-reads-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const open = async () => {
    const database = createDatabase(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: `sqlite:${join(dir, 'app.sqlite')}` }),
      logger,
      [userStore, mfaStore],
      { cleanupJob: false, connectAttempts: 1 },
    );
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

describe('lookups on SQLite taken together', () => {
  const dir = mkdtempSync(join(tmpdir(), 'read-batches-'));
  let database: Database;
  let users: ReturnType<typeof database.store<DatabaseUserStore>>;
  const ids: string[] = [];
  beforeAll(async () => {
    database = createDatabase(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: `sqlite:${join(dir, 'app.sqlite')}` }),
      logger,
      [userStore],
      { cleanupJob: false, connectAttempts: 1 },
    );
    await database.connect();
    await database.migrate();
    users = database.store(userStore);
    for (let index = 0; index < 250; index += 1)
      ids.push(
        (await users.create({ email: `user-${index}@example.com`, passwordHash: 'hash', role: 'user', name: null })).id,
      );
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The statements SQLite ran while `work` did. */
  async function statementsDuring(work: () => Promise<unknown>): Promise<number> {
    const run = jest.spyOn(sqlite3.Statement.prototype, 'all');
    try {
      await work();
      return run.mock.calls.length;
    } finally {
      run.mockRestore();
    }
  }

  it('answer each lookup with its own row, in two statements: the first alone, then all that waited for it', async () => {
    const wanted = [...ids.slice(0, 30), ...ids.slice(0, 5), 'no-such-id', 'nor-this-one'];
    let found: (UserRecord | null)[] = [];
    const statements = await statementsDuring(
      async () => (found = await Promise.all(wanted.map((id) => users.findById(id)))),
    );
    expect(statements).toBe(2);
    expect(found.map((user) => user?.id ?? null)).toEqual([...ids.slice(0, 30), ...ids.slice(0, 5), null, null]);
    const byEmail = await Promise.all(
      ['USER-7@example.com', 'user-8@example.com', 'nobody@example.com'].map((email) => users.findByEmail(email)),
    );
    expect(byEmail.map((user) => user?.id ?? null)).toEqual([ids[7], ids[8], null]);
  });

  it('read at most 100 keys in one statement', async () => {
    const statements = await statementsDuring(() => Promise.all(ids.map((id) => users.findById(id))));
    expect(statements).toBe(1 + Math.ceil((ids.length - 1) / 100));
  });

  it("find the batch's keys through the table's index, never by scanning it", async () => {
    const { sequelize } = database as SqlDatabase;
    for (const column of ['id', 'email']) {
      const plan = await sequelize.query<{ detail: string }>(
        `EXPLAIN QUERY PLAN SELECT id FROM users WHERE ${column} IN (SELECT value FROM json_each(?))`,
        { replacements: [JSON.stringify(['a', 'b'])], type: QueryTypes.SELECT },
      );
      const details = plan.map((step) => step.detail).join(' | ');
      expect(details).toMatch(/SEARCH users USING (COVERING )?INDEX/);
      expect(details).not.toMatch(/SCAN users/);
    }
  });
});

describe('prepared statements on MySQL/MariaDB: a statement the server says is stale', () => {
  // What mysql2 is asked, on a stand-in connection: ER_NEED_REPREPARE (1615) cannot be made to happen on
  // demand on a real server (1243 is, in direct-reads-schema-change.test.ts); the path is the same.
  const SQL = 'SELECT `id` FROM `users` WHERE `id` = ?';
  function standIn(errors: (number | undefined)[]) {
    const calls: string[] = [];
    const connection = {
      execute(sql: string, _values: unknown[], callback: (error: Error | null, rows: unknown) => void) {
        calls.push(`execute ${sql}`);
        const errno = errors.shift();
        setImmediate(() =>
          errno
            ? callback(Object.assign(new Error(`errno ${errno}`), { errno }), undefined)
            : callback(null, [{ id: 'u1' }]),
        );
      },
      unprepare(sql: string) {
        calls.push(`unprepare ${sql}`);
      },
    };
    const released: unknown[] = [];
    const sequelize = {
      connectionManager: {
        getConnection: async () => connection,
        releaseConnection: async (held: unknown) => void released.push(held),
      },
    };
    return { reads: new DriverStatements(sequelize as unknown as Sequelize, 'mysql'), calls, released };
  }

  it.each([1615, 1243])('after %i: prepared again once on the same connection, and the read answers', async (errno) => {
    const { reads, calls, released } = standIn([errno]);
    await expect(reads.rows(SQL, ['u1'])).resolves.toEqual([{ id: 'u1' }]);
    expect(calls).toEqual([`execute ${SQL}`, `unprepare ${SQL}`, `execute ${SQL}`]);
    expect(released).toHaveLength(1);
  });

  it('a write is prepared again once too', async () => {
    const { reads, calls, released } = standIn([1243]);
    await expect(reads.execute(SQL, ['u1'])).resolves.toBeUndefined();
    expect(calls).toEqual([`execute ${SQL}`, `unprepare ${SQL}`, `execute ${SQL}`]);
    expect(released).toHaveLength(1);
  });

  it('fails as any database error when the second try fails too (no loop), and releases the connection', async () => {
    const { reads, calls, released } = standIn([1615, 1615]);
    await expect(reads.rows(SQL, ['u1'])).rejects.toBeInstanceOf(DatabaseError);
    expect(calls.filter((call) => call.startsWith('execute'))).toHaveLength(2);
    expect(released).toHaveLength(1);
  });

  it('does not retry other errors (a missing table, 1146)', async () => {
    const { reads, calls } = standIn([1146]);
    await expect(reads.rows(SQL, ['u1'])).rejects.toBeInstanceOf(DatabaseError);
    expect(calls).toEqual([`execute ${SQL}`]);
  });
});

describe('prepared statements on SQLite: a locked database', () => {
  // What sqlite3 is asked, on a stand-in connection: SQLITE_BUSY (another connection held the write lock past
  // sqlite3's busy wait) is tried again, as Sequelize's default retry does for its own statements.
  const SQL = 'INSERT INTO `t` (`a`) VALUES (?)';
  function standIn(busyTimes: number) {
    let failures = busyTimes;
    const calls: string[] = [];
    const statement = {
      run(_params: unknown[], callback: (error: Error | null) => void) {
        calls.push('run');
        const busy = failures > 0;
        failures -= 1;
        setImmediate(() =>
          callback(busy ? Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' }) : null),
        );
      },
      all() {},
      finalize(callback?: () => void) {
        calls.push('finalize');
        callback?.();
      },
    };
    const connection = {
      prepare(_sql: string, callback: (error: Error | null) => void) {
        calls.push('prepare');
        setImmediate(() => callback(null));
        return statement;
      },
    };
    const sequelize = { connectionManager: { getConnection: async () => connection } };
    return { statements: new DriverStatements(sequelize as unknown as Sequelize, 'sqlite'), calls };
  }

  it('runs once the lock is gone', async () => {
    const { statements, calls } = standIn(2);
    await expect(statements.execute(SQL, ['x'])).resolves.toBeUndefined();
    expect(calls.filter((call) => call === 'run')).toHaveLength(3);
  });

  it('gives up after five tries, with the error the store translates to 503', async () => {
    const { statements, calls } = standIn(10);
    const failure = statements.execute(SQL, ['x']);
    await expect(failure).rejects.toBeInstanceOf(DatabaseError);
    await expect(failure).rejects.toMatchObject({ original: { code: 'SQLITE_BUSY' } });
    expect(calls.filter((call) => call === 'run')).toHaveLength(5);
  });
});
