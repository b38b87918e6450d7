import { Redis } from 'ioredis';
import request from 'supertest';
import { clientBucket } from '../../src/http/client-ip';
import { buildAuthApp } from '../support/auth-helpers';
import { findRedisServer, startRedisServer, type RedisServer } from '../support/redis-server';
import type { TestApp } from '../support/test-app';
import { skipNotice } from '../support/skip-notice';

// Per-account login throttling on top of the per-IP limit (issue 15), on real HTTP and the real user store.
// The per-IP limit is raised throughout so the throttle is what answers; clients differ by X-Forwarded-For.

const USERS = [
  { name: 'Victim', email: 'victim@example.com', password: 'victim-password-1' },
  { name: 'Other', email: 'other@example.com', password: 'other-password-1' },
];
const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', TRUST_PROXY: '1', AUTH_RATE_LIMIT_MAX: '100000' };

async function withUsers(env: Record<string, string> = {}): Promise<TestApp> {
  const app = await buildAuthApp({ ...ENV, ...env });
  for (const user of USERS) await request(app.app.callback()).post('/api/auth/register').send(user).expect(201);
  return app;
}

const attempt = (app: TestApp, from: string, email: string, password: string) =>
  request(app.app.callback()).post('/api/auth/login').set('X-Forwarded-For', from).send({ email, password });

describe('login throttling, memory store', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await withUsers();
  });
  afterEach(() => app.close());

  it('ten wrong passwords from one address: 401 five times, then 429 with Retry-After, the right password too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1)
      statuses.push((await attempt(app, '198.51.100.1', USERS[0].email, `guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
    const refused = await attempt(app, '198.51.100.1', USERS[0].email, USERS[0].password).expect(429);
    expect(refused.body).toEqual({ status: 'fail', message: expect.stringMatching(/^Too many failed logins/) });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Another account from the same address logs in; the victim logs in from their own address.
    await attempt(app, '198.51.100.1', USERS[1].email, USERS[1].password).expect(200);
    await attempt(app, '203.0.113.50', USERS[0].email, USERS[0].password).expect(200);
    expect(app.logLines().filter((line) => line.outcome === 'throttled')).toHaveLength(6);
  });

  it('an unknown email is throttled exactly alike (no enumeration by throttling)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1)
      statuses.push((await attempt(app, '198.51.100.2', 'nobody@example.com', `guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('a successful login resets that address’s count for the account', async () => {
    for (let i = 0; i < 4; i += 1) await attempt(app, '198.51.100.3', USERS[0].email, 'wrong').expect(401);
    await attempt(app, '198.51.100.3', USERS[0].email, USERS[0].password).expect(200);
    for (let i = 0; i < 4; i += 1) await attempt(app, '198.51.100.3', USERS[0].email, 'wrong').expect(401);
    await attempt(app, '198.51.100.3', USERS[0].email, USERS[0].password).expect(200);
  });

  it('spelling the email differently does not buy new attempts', async () => {
    for (const email of [
      'victim@example.com',
      'VICTIM@example.com',
      'Victim@Example.com',
      'victim@EXAMPLE.com',
      'victim@example.COM',
    ]) {
      await attempt(app, '198.51.100.4', email, 'wrong').expect(401);
    }
    await attempt(app, '198.51.100.4', 'Victim@example.com', USERS[0].password).expect(429);
  });
});

describe('login throttling across addresses', () => {
  it('failures spread over addresses reach the per-account limit, which then holds everywhere', async () => {
    const app = await withUsers({ LOGIN_THROTTLE_FAILURES: '3', LOGIN_THROTTLE_ACCOUNT_FAILURES: '6' });
    try {
      for (const from of ['192.0.2.1', '192.0.2.2']) {
        for (let i = 0; i < 3; i += 1) await attempt(app, from, USERS[0].email, 'wrong').expect(401);
      }
      await attempt(app, '192.0.2.3', USERS[0].email, USERS[0].password).expect(429); // a fresh address: the account is held
      await attempt(app, '192.0.2.3', USERS[1].email, USERS[1].password).expect(200);
    } finally {
      await app.close();
    }
  });

  it('the throttle ends when the window passes without failures', async () => {
    const app = await withUsers({ LOGIN_THROTTLE_FAILURES: '2', LOGIN_THROTTLE_WINDOW: '1s' });
    try {
      for (let i = 0; i < 2; i += 1) await attempt(app, '192.0.2.9', USERS[0].email, 'wrong').expect(401);
      await attempt(app, '192.0.2.9', USERS[0].email, USERS[0].password).expect(429);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await attempt(app, '192.0.2.9', USERS[0].email, USERS[0].password).expect(200);
    } finally {
      await app.close();
    }
  });

  it('the account limit may not be below the pair limit (one address could then lock everyone out)', async () => {
    await expect(buildAuthApp({ LOGIN_THROTTLE_FAILURES: '5', LOGIN_THROTTLE_ACCOUNT_FAILURES: '4' })).rejects.toThrow(
      /LOGIN_THROTTLE_ACCOUNT_FAILURES/,
    );
  });
});

describe('IPv6 clients count by /64', () => {
  it.each([
    ['2001:db8:1:2::1', '2001:0db8:0001:0002::/64'],
    ['2001:DB8:1:2:ffff:eeee:dddd:cccc', '2001:0db8:0001:0002::/64'],
    ['::1', '0000:0000:0000:0000::/64'],
    ['fe80::1%eth0', 'fe80:0000:0000:0000::/64'],
    ['64:ff9b::192.0.2.33', '0064:ff9b:0000:0000::/64'],
    ['::ffff:192.0.2.33', '192.0.2.33'],
    ['192.0.2.33', '192.0.2.33'],
  ])('%s → %s', (ip, bucket) => {
    expect(clientBucket({ ip })).toBe(bucket);
  });

  it('addresses in one /64 share the auth rate limit; another /64 does not', async () => {
    const app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '2', TRUST_PROXY: '1' });
    try {
      const from = (ip: string) => request(app.app.callback()).get('/api/auth/x').set('X-Forwarded-For', ip);
      await from('2001:db8:1:2::1').expect(404);
      await from('2001:db8:1:2:aaaa:bbbb:cccc:dddd').expect(404);
      await from('2001:db8:1:2::9').expect(429);
      await from('2001:db8:1:3::1').expect(404);
    } finally {
      await app.close();
    }
  });
});

const redisBinary = findRedisServer();
if (!redisBinary)
  skipNotice('SKIPPED: Redis login-throttle tests: redis-server is not installed (apt-get install -y redis-server)');
(redisBinary ? describe : describe.skip)('login throttling shared through Redis (REDIS_URL)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(redisBinary!);
  });
  afterAll(() => redis.stop());

  it('two instances share the counts, and no email is stored in Redis in the clear', async () => {
    const first = await withUsers({ REDIS_URL: redis.url });
    const second = await buildAuthApp({ ...ENV, REDIS_URL: redis.url, USER_STORE: 'demo', AUTH_REGISTRATION: 'false' });
    try {
      for (const app of [first, second, first, second, first])
        await attempt(app, '198.51.100.7', USERS[0].email, 'wrong').expect(401);
      await attempt(second, '198.51.100.7', USERS[0].email, 'wrong').expect(429);
      await attempt(first, '198.51.100.7', USERS[0].email, USERS[0].password).expect(429);
      const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        const keys = await client.keys('login-throttle:*');
        expect(keys.length).toBeGreaterThan(0);
        expect(keys.join()).not.toMatch(/victim|example/);
      } finally {
        await client.quit();
      }
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
