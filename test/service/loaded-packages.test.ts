import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';

// Only what the configuration uses is loaded (docs/performance.md): on SQLite without REDIS_URL, none of
// the other engines' drivers, mongoose or ioredis. The service runs in a child process (through tsx, from
// the sources), because jest keeps its own module registry and never fills require.cache.

const run = promisify(execFile);
/** Production refuses the documented demo password; the child logs in with this one. */
const DEMO_PASSWORD = 'loaded packages demo passphrase 7';
/** Production takes only secrets nobody can guess. */
const SECRETS = {
  JWT_SECRET: randomBytes(48).toString('base64'),
  REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64'),
};
const root = path.resolve(__dirname, '../..');

async function loadedPackages(
  env: Record<string, string>,
  script = 'test/support/print-loaded-packages.ts',
): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--require', 'tsx/cjs', script], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      COOKIE_SECURE: 'false',
      DEMO_USER_PASSWORD: DEMO_PASSWORD,
      ...SECRETS,
      ...env,
    },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

describe('packages loaded by a running service', () => {
  it('on SQLite: sqlite3 and the service, no other engine, no mongoose, no ioredis, no openid-client', async () => {
    const packages = await loadedPackages({ DATABASE_URL: 'sqlite::memory:' });
    // The positive half shows the listing sees what the child loaded.
    expect(packages).toEqual(expect.arrayContaining(['koa', 'sequelize', 'sqlite3', 'argon2', 'jsonwebtoken']));
    // No @zxcvbn-ts: production checked the secrets and DEMO_USER_PASSWORD against its word lists in a child
    // process at start-up (src/config/checks-in-child.ts); a demo store loads them only for a password change.
    for (const absent of [
      'mongoose',
      'mongodb',
      'ioredis',
      'pg',
      'mysql2',
      'tedious',
      'pino-pretty',
      'formidable',
      'koa-body',
      'nodemailer',
      'otplib',
      'openid-client',
      'oauth4webapi',
      'jose',
      '@zxcvbn-ts/core',
      '@zxcvbn-ts/language-en',
      '@zxcvbn-ts/language-common',
    ]) {
      expect(packages).not.toContain(absent);
    }
  }, 90_000);

  it('with SMTP_URL: nodemailer too (password reset by email)', async () => {
    const packages = await loadedPackages(
      {
        DATABASE_URL: 'sqlite::memory:',
        USER_STORE: 'database',
        SMTP_URL: 'smtp://127.0.0.1:9',
        PUBLIC_URL: 'https://app.example.test',
      },
      'test/support/print-declared-packages.ts',
    );
    expect(packages).toContain('nodemailer');
  }, 90_000);

  it('on MongoDB (built, not connected: no server here): mongoose, and no Sequelize or SQL driver', async () => {
    const packages = await loadedPackages(
      { DATABASE_URL: 'mongodb://127.0.0.1:9/app' },
      'test/support/print-declared-packages.ts',
    );
    expect(packages).toEqual(expect.arrayContaining(['koa', 'mongoose', 'jsonwebtoken']));
    for (const absent of ['sequelize', 'umzug', 'sqlite3', 'pg', 'mysql2', 'tedious', 'ioredis'])
      expect(packages).not.toContain(absent);
  }, 90_000);

  // The network engines when the run names one (scripts/ci/databases.sh native sets these): its driver only.
  const engines = [
    { variable: 'TEST_POSTGRES_URL', driver: 'pg' },
    { variable: 'TEST_MYSQL_URL', driver: 'mysql2' },
  ];
  for (const { variable, driver } of engines) {
    const url = process.env[variable];
    if (!url) console.log(`loaded packages on ${driver}: skipped, ${variable} is not set`);
    (url ? it : it.skip)(
      `with ${variable}: ${driver} and no other driver`,
      async () => {
        const packages = await loadedPackages({ DATABASE_URL: url! });
        expect(packages).toContain(driver);
        for (const absent of ['mongoose', 'mongodb', 'ioredis', 'pg', 'mysql2', 'tedious', 'sqlite3'].filter(
          (name) => name !== driver,
        )) {
          expect(packages).not.toContain(absent);
        }
      },
      90_000,
    );
  }
});
