import { Redis } from 'ioredis';
import request from 'supertest';
import type { Response } from 'supertest';
import { buildAuthApp, setCookies } from '../support/auth-helpers';
import { findRedisServer, startRedisServer, type RedisServer } from '../support/redis-server';
import type { TestApp } from '../support/test-app';
import { skipNotice } from '../support/skip-notice';

// The login throttle under parallel requests, and the device cookie that keeps an account's owner from
// being locked out by guessers elsewhere. Every request is real HTTP; the parallel ones are sent at once.
// On the code that checked the counters before argon2 and counted after it, ten parallel guesses were all
// answered 401 and none 429.

const OWNER = { name: 'Owner', email: 'owner@example.com', password: 'a quiet lighthouse keeper' };
const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', TRUST_PROXY: '1', AUTH_RATE_LIMIT_MAX: '100000' };

async function appWithOwner(env: Record<string, string> = {}): Promise<TestApp> {
  const app = await buildAuthApp({ ...ENV, ...env });
  await request(app.app.callback()).post('/api/auth/register').send(OWNER).expect(201);
  return app;
}

const login = (app: TestApp, from: string, password: string, cookie?: string) => {
  const req = request(app.app.callback()).post('/api/auth/login').set('X-Forwarded-For', from);
  return (cookie ? req.set('Cookie', cookie) : req).send({ email: OWNER.email, password });
};
const statuses = (responses: Response[]) => responses.map((response) => response.status).sort();
const deviceCookieOf = (response: Response) =>
  setCookies(response)
    .find((c) => c.startsWith('loginDevice='))
    ?.split(';')[0];

function raceCases(
  name: string,
  env: () => Record<string, string>,
  reset: () => Promise<void> = async () => undefined,
) {
  describe(`parallel guesses (${name})`, () => {
    let app: TestApp;
    beforeEach(async () => {
      await reset(); // counters of earlier cases (same account, same keys) must not carry over
      app = await appWithOwner(env());
    });
    afterEach(() => app.close());

    it('ten parallel wrong passwords from one address: five 401, five 429', async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => login(app, '198.51.100.20', `guess-${i}`)),
      );
      expect(statuses(answers)).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
      await login(app, '198.51.100.20', OWNER.password).expect(429);
    });

    it('ten parallel wrong current passwords on POST /api/auth/password: five 401, five 429', async () => {
      const { accessToken } = (await login(app, '198.51.100.21', OWNER.password).expect(200)).body.data;
      const change = (i: number) =>
        request(app.app.callback())
          .post('/api/auth/password')
          .set('X-Forwarded-For', '198.51.100.22')
          .set('Authorization', `Bearer ${accessToken}`)
          .send({ currentPassword: `guess-${i}`, newPassword: 'another quiet lighthouse' });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => change(i)));
      expect(statuses(answers)).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
    });

    it('parallel guesses from many addresses stop at the account limit', async () => {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) => login(app, `192.0.2.${i + 1}`, `guess-${i}`)),
      );
      // LOGIN_THROTTLE_ACCOUNT_FAILURES=20 below: no more than 20 reached the password check.
      expect(answers.filter((answer) => answer.status === 401)).toHaveLength(20);
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(4);
    });

    it('the owner with a device cookie logs in through an account-wide lock; a stranger does not', async () => {
      const device = deviceCookieOf(await login(app, '203.0.113.5', OWNER.password).expect(200));
      expect(device).toMatch(/^loginDevice=/);
      for (let i = 0; i < 4; i += 1) {
        await Promise.all(Array.from({ length: 5 }, (_, j) => login(app, `192.0.2.${100 + i * 5 + j}`, 'wrong')));
      }
      await login(app, '198.51.100.99', OWNER.password).expect(429); // the account is locked for unknown clients
      const owner = await login(app, '198.51.100.99', OWNER.password, device).expect(200); // even from a new address
      expect(deviceCookieOf(owner)).toBeUndefined(); // a known device keeps its cookie
      // A forged or foreign device cookie is just no cookie.
      await login(app, '198.51.100.99', OWNER.password, `${device}x`).expect(429);
      // The device has its own limit: five wrong passwords from it, then it waits like any client.
      for (let i = 0; i < 5; i += 1) await login(app, '198.51.100.98', 'wrong', device).expect(401);
      await login(app, '198.51.100.98', OWNER.password, device).expect(429);
    });
  });
}

const ACCOUNT_LIMIT = { LOGIN_THROTTLE_FAILURES: '5', LOGIN_THROTTLE_ACCOUNT_FAILURES: '20' };
raceCases('memory', () => ACCOUNT_LIMIT);

const redisBinary = findRedisServer();
if (!redisBinary)
  skipNotice(
    'SKIPPED: Redis login-throttle race tests: redis-server is not installed (apt-get install -y redis-server)',
  );
if (redisBinary) {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(redisBinary);
  });
  afterAll(() => redis.stop());
  const flush = async () => {
    const client = new Redis(redis.url);
    await client.flushdb();
    client.disconnect();
  };
  raceCases('Redis', () => ({ ...ACCOUNT_LIMIT, REDIS_URL: redis.url }), flush);
}
