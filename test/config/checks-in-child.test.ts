import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { refusalsInChild } from '../../src/config/checks-in-child';
import type * as ConfigModule from '../../src/config/config';
import { configError } from '../support/config-error';

// The production start-up checks that need word lists run in a short-lived child process
// (src/config/checks-in-child.ts), so the lists never stay in the service: the child still refuses what the
// rules refuse, the service refuses to start when the child cannot answer, and nothing on stdin picks code.

const STRONG = {
  JWT_SECRET: randomBytes(48).toString('base64'),
  REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64url'),
};
const PRODUCTION = { NODE_ENV: 'production', USER_STORE: 'database', ...STRONG };

describe('start-up checks in a child process', () => {
  it('refuses a secret made of words and a decorated password, and takes random bytes and a passphrase', () => {
    const words = 'correct-horse-battery-staple-lantern-harbour';
    expect(
      refusalsInChild([
        { kind: 'secret', value: words },
        { kind: 'secret', value: randomBytes(48).toString('base64url') },
        { kind: 'password', password: 'Summer2024!!', email: 'demo@example.com' },
        { kind: 'password', password: 'lantern harbour quiet seven orange', email: 'demo@example.com' },
      ]),
    ).toEqual(['is made of words', undefined, expect.stringMatching(/common word or name with digits/), undefined]);
  });

  it('a production start refuses a weak JWT_SECRET, REFRESH_TOKEN_SECRET or MFA key, naming it and not its value', () => {
    const weak = 'mycompanyname-production-jwt-signing-secret-2024-v1';
    for (const [variable, env] of [
      ['JWT_SECRET', { JWT_SECRET: weak }],
      ['REFRESH_TOKEN_SECRET', { REFRESH_TOKEN_SECRET: weak }],
      ['MFA_ENCRYPTION_KEY', { MFA_ENCRYPTION_KEY: weak }],
    ] as const) {
      const error = configError({ ...PRODUCTION, ...env });
      expect([variable, error.variable, error.message]).toEqual([
        variable,
        variable,
        expect.stringContaining('is made of words'),
      ]);
      expect(error.message).not.toContain(weak);
    }
  });

  it('the child answers only the checks it knows, and says nothing of its input when it fails', () => {
    const secret = randomBytes(48).toString('base64url');
    const child = spawnSync(
      process.execPath,
      ['--require', 'tsx/cjs', path.resolve(__dirname, '../../src/config/checks-child.ts')],
      {
        input: JSON.stringify([
          { kind: 'secret', value: secret },
          { kind: 'evaluate', value: 'process.exit(0)' },
        ]),
        encoding: 'utf8',
      },
    );
    expect(child.status).toBe(1);
    expect(child.stdout).toBe('');
    expect(child.stderr).toMatch(/unknown check "evaluate"/);
    expect(child.stderr).not.toContain(secret);
  });
});

describe('when the child cannot answer', () => {
  afterEach(() => jest.resetModules());

  it('production refuses to start rather than go on unchecked', () => {
    jest.isolateModules(() => {
      jest.doMock('node:child_process', () => ({
        spawnSync: () => ({
          status: null,
          signal: 'SIGKILL',
          stdout: '',
          stderr: '',
          error: new Error('spawnSync node ETIMEDOUT'),
        }),
      }));
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the mock, in its own registry
      const { loadConfig } = require('../../src/config/config') as typeof ConfigModule;
      expect(() => loadConfig({ ...PRODUCTION, JWT_SECRET: randomBytes(48).toString('hex') })).toThrow(
        /start-up checks could not run: spawnSync node ETIMEDOUT/,
      );
    });
  });
});
