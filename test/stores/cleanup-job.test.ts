import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { ExpiredRecordCleanup } from '../../src/stores/cleanup-job';
import { createDatabase } from '../../src/stores/create-database';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { refreshTokenStore } from '../../src/auth/stores/definitions';
import { registeredStores } from '../support/registered-stores';

// The in-process cleanup job of the relational engines, wired as the service wires it (createDatabase
// with REFRESH_TOKEN_CLEANUP_INTERVAL), on a real SQLite file.

function digest(): string {
  return createHash('sha256').update(randomBytes(32)).digest('hex');
}

/** A pino logger whose lines the test can read. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
}

describe('expired refresh-token cleanup job', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cleanup-job-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs soon after connect, removes only expired rows, logs the count, and stops on close', async () => {
    const { logger, lines } = capturingLogger();
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: `sqlite:${path.join(dir, 'app.sqlite')}`,
      REFRESH_TOKEN_CLEANUP_INTERVAL: '1s',
    });
    // The job must not run before the schema exists: migrate with a job-less instance first.
    const setup = createDatabase(config, logger, registeredStores, { cleanupJob: false });
    await setup.connect();
    await setup.migrate();
    const expired = [digest(), digest(), digest()];
    const valid = [digest(), digest()];
    for (const token of expired)
      await setup.store(refreshTokenStore).create({ userId: 'u', token, expiresAt: new Date(Date.now() - 1_000) });
    for (const token of valid)
      await setup.store(refreshTokenStore).create({ userId: 'u', token, expiresAt: new Date(Date.now() + 3_600_000) });
    await setup.close();

    const database = createDatabase(config, logger, registeredStores) as SqlDatabase;
    await database.connect();
    try {
      const runs = () => lines.filter((line) => line.msg === 'expired records removed');
      // First run after min(interval, 10 s) = 1 s; bounded wait.
      expect(await until(() => runs().length >= 1, 5_000)).toBe(true);
      expect(runs()[0]).toMatchObject({ removed: expired.length });
      const RefreshToken = database.sequelize.model('RefreshToken');
      expect(await RefreshToken.count({ where: { token: expired } })).toBe(0);
      expect(await RefreshToken.count({ where: { token: valid } })).toBe(valid.length);
      // It repeats at the interval (nothing left to remove now).
      expect(await until(() => runs().length >= 2, 5_000)).toBe(true);
      expect(runs()[1]).toMatchObject({ removed: 0 });
    } finally {
      await database.close();
    }
    const runsAtClose = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(lines.length).toBe(runsAtClose);
  }, 20_000);

  it('logs a failed run and keeps going instead of crashing', async () => {
    const { logger, lines } = capturingLogger();
    let calls = 0;
    const job = new ExpiredRecordCleanup(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database unreachable');
        return 4;
      },
      logger,
      20,
      0,
    );
    job.start();
    try {
      expect(await until(() => calls >= 2, 2_000)).toBe(true);
    } finally {
      await job.stop();
    }
    expect(lines.find((line) => line.msg === 'expired-record cleanup failed')).toBeDefined();
    expect(lines.find((line) => line.msg === 'expired records removed')).toMatchObject({ removed: 4 });
  });
});
