import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mfaStore, userStore } from '../../src/auth/stores/definitions';
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { createDatabase } from '../../src/stores/create-database';

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
