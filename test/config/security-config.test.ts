import { loadConfig } from '../../src/config/config';
import { configError } from '../support/config-error';
import { randomBytes } from 'node:crypto';
import { checkDemoPassword } from '../../src/auth/demo-user-store';
import { ConfigError } from '../../src/config/errors';

// The configuration rules added by the security audit (issue 11): demo credentials in production, secret
// entropy, the access-token lifetime bound, token claims, PUBLIC_URL and the password length policy.

/** Random secrets: the production rule refuses one with a chance below 10^-12 (test/config/secret-rule.test.ts). */
const STRONG = {
  JWT_SECRET: randomBytes(48).toString('base64'),
  REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64'),
};
const PRODUCTION = { NODE_ENV: 'production', ...STRONG, DEMO_USER_PASSWORD: 'a changed demo passphrase, long enough' };

describe('the demo user in production', () => {
  it('refuses to start with the demo store and the documented password, unset or explicit', () => {
    for (const env of [{}, { DEMO_USER_PASSWORD: 'demo-password' }, { USER_STORE: 'demo' }] as Record<
      string,
      string
    >[]) {
      const error = configError({ NODE_ENV: 'production', ...STRONG, ...env });
      expect(error.variable).toBe('DEMO_USER_PASSWORD');
      expect(error.message).toMatch(/non-default value .*USER_STORE=database/);
    }
  });

  it('starts with a changed demo password (with a warning), or with the database store', () => {
    expect(loadConfig(PRODUCTION).demoUser.password).toBe(PRODUCTION.DEMO_USER_PASSWORD);
    expect(loadConfig({ NODE_ENV: 'production', ...STRONG, USER_STORE: 'database' }).userStore).toBe('database');
  });

  it('development and test keep the documented demo password', () => {
    expect(loadConfig({}).demoUser.password).toBe('demo-password');
    expect(loadConfig({ NODE_ENV: 'test' }).demoUser.password).toBe('demo-password');
  });
});

describe('JWT_EXPIRES_IN is bounded', () => {
  it('accepts up to 7 days, the longest form the specification names', () => {
    expect(loadConfig({ JWT_EXPIRES_IN: '7d' }).jwt.accessTtlSeconds).toBe(604_800);
    expect(loadConfig({ JWT_EXPIRES_IN: '604800' }).jwt.accessTtlSeconds).toBe(604_800);
  });

  it.each(['8d', '604801', '3650d', '169h'])('%s stops start-up with a clear message', (value) => {
    const error = configError({ JWT_EXPIRES_IN: value });
    expect(error.variable).toBe('JWT_EXPIRES_IN');
    expect(error.message).toMatch(/at most 7d/);
  });

  it('warns in production above one hour, not at or below it', () => {
    expect(loadConfig({ ...PRODUCTION, JWT_EXPIRES_IN: '2h' }).warnings.join()).toMatch(/JWT_EXPIRES_IN is above 1h/);
    expect(loadConfig({ ...PRODUCTION, JWT_EXPIRES_IN: '1h' }).warnings.join()).not.toMatch(/JWT_EXPIRES_IN/);
    expect(loadConfig({ JWT_EXPIRES_IN: '2h' }).warnings.join()).not.toMatch(/JWT_EXPIRES_IN/);
  });
});

describe('token claims, PUBLIC_URL and the password policy', () => {
  it('issuer and audience default to the service name; the audience defaults to the issuer', () => {
    expect(loadConfig({}).jwt).toMatchObject({ issuer: 'koa-api-service', audience: 'koa-api-service' });
    expect(loadConfig({ JWT_ISSUER: 'https://auth.example.com' }).jwt).toMatchObject({
      issuer: 'https://auth.example.com',
      audience: 'https://auth.example.com',
    });
    expect(loadConfig({ JWT_AUDIENCE: 'orders-api' }).jwt.audience).toBe('orders-api');
    expect(configError({ JWT_ISSUER: 'has spaces' }).variable).toBe('JWT_ISSUER');
    expect(configError({ JWT_AUDIENCE: 'x'.repeat(201) }).variable).toBe('JWT_AUDIENCE');
  });

  it('PUBLIC_URL is an absolute http(s) URL, kept without a trailing slash', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/service/' }).publicUrl).toBe('https://example.com/service');
    for (const bad of [
      'api.example.com',
      'ftp://example.com',
      'https://user:pw@example.com',
      'https://example.com/?a=1',
    ]) {
      expect(configError({ PUBLIC_URL: bad }).variable).toBe('PUBLIC_URL');
    }
  });

  it('production with TRUST_PROXY but no PUBLIC_URL warns that the origin check trusts X-Forwarded-Host', () => {
    expect(loadConfig({ ...PRODUCTION, TRUST_PROXY: '1' }).warnings.join()).toMatch(/PUBLIC_URL/);
    expect(
      loadConfig({ ...PRODUCTION, TRUST_PROXY: '1', PUBLIC_URL: 'https://api.example.com' }).warnings.join(),
    ).not.toMatch(/PUBLIC_URL/);
  });

  it('PASSWORD_MIN_LENGTH defaults to 12 and stays within 8..128', () => {
    expect(loadConfig({}).passwordMinLength).toBe(12);
    expect(loadConfig({ PASSWORD_MIN_LENGTH: '8' }).passwordMinLength).toBe(8);
    expect(configError({ PASSWORD_MIN_LENGTH: '6' }).variable).toBe('PASSWORD_MIN_LENGTH');
    expect(configError({ PASSWORD_MIN_LENGTH: '129' }).variable).toBe('PASSWORD_MIN_LENGTH');
  });
});

describe('a guessable demo password in production', () => {
  it.each(['password', 'x', 'demo-passw0rd', 'qwertyuiopas', 'Summer2024!!'])(
    'refuses DEMO_USER_PASSWORD=%s when the demo store is built',
    (password) => {
      const config = loadConfig({ ...PRODUCTION, DEMO_USER_PASSWORD: password });
      const error = (() => {
        try {
          checkDemoPassword(config);
        } catch (thrown) {
          return thrown as ConfigError;
        }
        throw new Error('accepted');
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.variable).toBe('DEMO_USER_PASSWORD');
      expect(error.message).not.toContain(password);
    },
  );

  it('takes a passphrase, and anything outside production', () => {
    expect(() => checkDemoPassword(loadConfig(PRODUCTION))).not.toThrow();
    expect(() => checkDemoPassword(loadConfig({ DEMO_USER_PASSWORD: 'x' }))).not.toThrow();
  });
});

describe('production without a shared store says so', () => {
  it('warns naming REDIS_URL and each limit that then counts per replica; not with REDIS_URL, not outside production', () => {
    const warning = loadConfig(PRODUCTION).warnings.find((line) => line.startsWith('REDIS_URL'));
    for (const name of [
      'AUTH_RATE_LIMIT_MAX',
      'LOGIN_THROTTLE_FAILURES',
      'LOGIN_THROTTLE_ACCOUNT_FAILURES',
      'second-factor codes',
    ])
      expect(warning).toContain(name);
    expect(loadConfig({ ...PRODUCTION, REDIS_URL: 'redis://127.0.0.1:6379' }).warnings.join()).not.toMatch(/REDIS_URL/);
    expect(loadConfig({}).warnings.join()).not.toMatch(/REDIS_URL/);
  });
});

describe('REFRESH_REUSE_GRACE cannot switch reuse detection off', () => {
  it.each(['61s', '2m', '8d', '24d'])('%s stops start-up naming the variable', (value) => {
    expect(configError({ REFRESH_REUSE_GRACE: value }).variable).toBe('REFRESH_REUSE_GRACE');
  });

  it('accepts up to 60 s, and 0', () => {
    expect(loadConfig({ REFRESH_REUSE_GRACE: '60s' }).refreshRotation.graceMs).toBe(60_000);
    expect(loadConfig({ REFRESH_REUSE_GRACE: '0' }).refreshRotation.graceMs).toBe(0);
  });
});
