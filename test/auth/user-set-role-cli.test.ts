import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TEST_SECRETS } from '../support/test-app';

// `npm run user:set-role` for real, in its own process against an SQLite file, after user:create made the user.
const root = resolve(__dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');

describe('user:set-role CLI', () => {
  let dir: string;
  const run = (script: string, args: string[], input?: string) =>
    spawnSync(tsx, [`src/cli/${script}.ts`, ...args], {
      cwd: root,
      input,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: `sqlite:${join(dir, 'users.sqlite')}`, ...TEST_SECRETS },
    });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'set-role-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('changes the role of a user found by email (any case), to one of ROLES only', () => {
    const created = run('user-create', ['--email', 'grace@example.com'], 'compiler pioneer 1\n');
    expect(created.status).toBe(0);
    const id = created.stdout.trim();

    const changed = run('user-set-role', ['--email', 'Grace@Example.com', '--role', 'admin']);
    expect([changed.status, changed.stdout.trim()]).toEqual([0, `${id} user -> admin`]);

    const unknownRole = run('user-set-role', ['--email', 'grace@example.com', '--role', 'root']);
    expect(unknownRole.status).toBe(2);
    expect(unknownRole.stderr).toMatch(/--role must be one of ROLES: user, admin/);

    const unknownUser = run('user-set-role', ['--email', 'nobody@example.com', '--role', 'user']);
    expect(unknownUser.status).toBe(2);
    expect(unknownUser.stderr).toMatch(/no user has the email nobody@example.com/);

    expect(run('user-set-role', ['--email', 'grace@example.com']).status).toBe(2);
  }, 60_000);
});
