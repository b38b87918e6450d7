import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import sqlite3 from 'sqlite3';
import { userStore } from '../../src/auth/stores/definitions';
import { loadConfig } from '../../src/config/config';
import { createDatabase } from '../../src/stores/create-database';
import type { Database } from '../../src/stores/types';

// A SQLite file is put in write-ahead-log mode when the service connects (sqlite-journal.ts): a reader
// elsewhere (a backup, the CLI, a shell) no longer holds up the service's commits, nor a commit its reads.

interface Raw {
  all(sql: string): Promise<Record<string, unknown>[]>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** A connection of another program to the same file, through the same driver the service uses. */
function rawConnection(file: string): Raw {
  const db = new sqlite3.Database(file);
  const settle = <T>(run: (done: (error: Error | null, value?: T) => void) => void) =>
    new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
  return {
    all: (sql) => settle((done) => db.all(sql, done)),
    exec: (sql) => settle((done) => db.exec(sql, (error) => done(error))),
    close: () => settle((done) => db.close((error) => done(error))),
  };
}

describe('SQLite file: write-ahead log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-journal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const warnings: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void warnings.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const open = async (file: string): Promise<Database> => {
    const database = createDatabase(
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: `sqlite:${file}`, DATABASE_TIMEOUT: '5000' }),
      logger,
      [userStore],
      { cleanupJob: false, connectAttempts: 1 },
    );
    await database.connect();
    await database.migrate();
    return database;
  };
  beforeEach(() => (warnings.length = 0));

  it('is the mode of the file once the service has connected, and stays its mode', async () => {
    const file = join(dir, 'mode.sqlite');
    const database = await open(file);
    const other = rawConnection(file);
    try {
      expect(await other.all('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      await database
        .store(userStore)
        .create({ email: 'logged@example.com', passwordHash: 'hash', role: 'user', name: null });
      expect(existsSync(`${file}-wal`)).toBe(true);
    } finally {
      await other.close();
      await database.close();
    }
    const again = rawConnection(file);
    expect(await again.all('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    await again.close();
    expect(warnings).toEqual([]);
  });

  it('lets the service commit while another program holds a read open, and that program keeps its snapshot', async () => {
    const file = join(dir, 'reader.sqlite');
    const database = await open(file);
    const users = database.store(userStore);
    await users.create({ email: 'first@example.com', passwordHash: 'hash', role: 'user', name: null });
    const reader = rawConnection(file);
    try {
      await reader.exec('BEGIN');
      expect(await reader.all('SELECT COUNT(*) AS n FROM users')).toEqual([{ n: 1 }]);
      // In rollback-journal mode this commit would wait for the reader's lock and fail (SQLITE_BUSY).
      const second = await users.create({
        email: 'second@example.com',
        passwordHash: 'hash',
        role: 'user',
        name: null,
      });
      expect(await users.findById(second.id)).toEqual(second);
      expect(await reader.all('SELECT COUNT(*) AS n FROM users')).toEqual([{ n: 1 }]);
      await reader.exec('COMMIT');
      expect(await reader.all('SELECT COUNT(*) AS n FROM users')).toEqual([{ n: 2 }]);
    } finally {
      await reader.close();
      await database.close();
    }
  });

  it('starts in the old mode, with a warning, when it cannot have the file to itself to switch', async () => {
    const file = join(dir, 'held.sqlite');
    const holder = rawConnection(file);
    await holder.exec('CREATE TABLE held (n INTEGER); INSERT INTO held VALUES (1); BEGIN');
    expect(await holder.all('SELECT n FROM held')).toEqual([{ n: 1 }]); // a read held open: the file is shared, not the service's alone
    let database: Database | undefined;
    try {
      const opening = createDatabase(
        loadConfig({ NODE_ENV: 'test', DATABASE_URL: `sqlite:${file}` }),
        logger,
        [userStore],
        { cleanupJob: false, connectAttempts: 1 },
      );
      database = opening;
      await opening.connect();
      expect(warnings).toEqual([
        expect.objectContaining({
          level: 40,
          msg: expect.stringContaining('could not switch to write-ahead-log mode'),
        }),
      ]);
    } finally {
      await holder.exec('COMMIT');
      await holder.close();
      await database?.close();
    }
    const after = rawConnection(file);
    expect(await after.all('PRAGMA journal_mode')).toEqual([{ journal_mode: 'delete' }]);
    await after.close();
  });
});
