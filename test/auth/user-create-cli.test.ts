import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { buildAuthApp, login } from '../support/auth-helpers';
import { TEST_SECRETS } from '../support/test-app';
import { userStore } from '../../src/auth/stores/definitions';

// `npm run user:create` for real: the CLI runs in its own process against an SQLite file, then the
// service, started on that file with USER_STORE=database, lets the new user log in.
const root = resolve(__dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');

describe('user:create CLI', () => {
  let dir: string;
  let databaseUrl: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'auth-cli-'));
    databaseUrl = `sqlite:${join(dir, 'users.sqlite')}`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function run(args: string[], input?: string) {
    return spawnSync(tsx, ['src/cli/user-create.ts', ...args], {
      cwd: root,
      input,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, ...TEST_SECRETS },
    });
  }

  it('creates a user from flags and stdin, prints only the id; the user can log in with the role given', async () => {
    const admin = run(['--email', ' Admin@Example.com ', '--role', 'admin', '--name', 'Ada'], 'admin-password-1\n');
    expect(admin.stderr).toBe('');
    expect(admin.status).toBe(0);
    const id = admin.stdout.trim();
    expect(id).toMatch(/^\S+$/);
    expect(admin.stdout).not.toMatch(/argon2|password/);

    const user = run(['--email', 'user@example.com', '--password', 'user-password-1']);
    expect(user.status).toBe(0);

    const app = await buildAuthApp({ DATABASE_URL: databaseUrl, USER_STORE: 'database' });
    try {
      const session = await login(app, { email: 'admin@example.com', password: 'admin-password-1' });
      const claims = JSON.parse(Buffer.from(session.accessToken.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ sub: id, role: 'admin' });
      await login(app, { email: 'user@example.com', password: 'user-password-1' });
      await request(app.app.callback())
        .post('/api/auth/login')
        .send({ email: 'admin@example.com', password: 'wrong-password' })
        .expect(401);
      expect((await app.services.database.store(userStore).findById(id))!.name).toBe('Ada');
    } finally {
      await app.close();
    }
  });

  it('refuses a taken email (exit 1), a bad email or short password (exit 2), without a stack trace', () => {
    const taken = run(['--email', 'ADMIN@example.com', '--password', 'another-password']);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toBe('a user with this email exists already\n');

    const badEmail = run(['--email', 'not-an-email', '--password', 'long-enough-1']);
    expect(badEmail.status).toBe(2);
    expect(badEmail.stderr).toMatch(/^--email must be a valid email address\nusage:/);

    const shortPassword = run(['--email', 'new@example.com'], 'short\n');
    expect(shortPassword.status).toBe(2);
    expect(shortPassword.stderr).toMatch(/password must be 12 to 128 characters/);
    const common = run(['--email', 'new@example.com', '--password', '123456789012']);
    expect(common.status).toBe(2);
    expect(common.stderr).toMatch(/password is too common/);
  });
});
