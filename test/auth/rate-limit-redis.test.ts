import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import request from 'supertest';
import { buildAuthApp } from '../support/auth-helpers';
import { findRedisServer, startRedisServer, type RedisServer } from '../support/redis-server';
import type { TestApp } from '../support/test-app';
import { skipNotice } from '../support/skip-notice';

// Against a real redis-server started here on a free loopback port. Without the binary these tests are
// skipped, and say so, rather than passing without having run.
const redisBinary = findRedisServer();
if (!redisBinary) {
  skipNotice('SKIPPED: Redis rate-limit tests: redis-server is not installed (apt-get install -y redis-server)');
}
const describeWithRedis = redisBinary ? describe : describe.skip;

describeWithRedis('auth rate limit shared through Redis (REDIS_URL)', () => {
  let redis: RedisServer;
  const apps: TestApp[] = [];

  const build = async (env: Record<string, string>) => {
    const app = await buildAuthApp({ REDIS_URL: redis.url, ...env });
    apps.push(app);
    return app;
  };

  /** A short-lived client of our own, to look at and reset what the service stored. */
  async function withRedis<T>(use: (client: Redis) => Promise<T>): Promise<T> {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      return await use(client);
    } finally {
      await client.quit();
    }
  }

  beforeAll(async () => {
    redis = await startRedisServer(redisBinary!);
  });
  beforeEach(() => withRedis((client) => client.flushall()));
  afterEach(() => Promise.all(apps.splice(0).map((app) => app.close())));
  afterAll(() => redis.stop());

  it('two app instances on one Redis share one limit', async () => {
    const [first, second] = [await build({ AUTH_RATE_LIMIT_MAX: '4' }), await build({ AUTH_RATE_LIMIT_MAX: '4' })];
    const a = request(first.app.callback());
    const b = request(second.app.callback());
    const remaining: string[] = [];
    for (const http of [a, b, a, b]) {
      const response = await http.post('/api/auth/refresh').expect(401);
      remaining.push(response.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['3', '2', '1', '0']);
    const limited = await a.post('/api/auth/refresh').expect(429);
    expect(limited.body).toEqual({
      status: 'fail',
      message: expect.stringMatching(/^Too many authentication requests/),
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('4');
    await b.get('/api/auth/whatever').expect(429);
    await b.get('/').expect(200);
    // The counters really are in Redis.
    expect(await withRedis((client) => client.keys('auth-rate-limit:*'))).toHaveLength(1);
  });

  it('a forged X-Forwarded-For (TRUST_PROXY=0) does not reset the shared count', async () => {
    const http = request((await build({ AUTH_RATE_LIMIT_MAX: '2' })).app.callback());
    await http.post('/api/auth/refresh').set('X-Forwarded-For', '203.0.113.1').expect(401);
    await http.post('/api/auth/refresh').set('X-Forwarded-For', '203.0.113.2').expect(401);
    await http.post('/api/auth/refresh').set('X-Forwarded-For', '203.0.113.3').expect(429);
  });

  // Last: it stops the server.
  it('Redis down: auth requests are refused quickly with 503 (fail closed), GET / still answers, shutdown does not hang', async () => {
    const app = await build({ AUTH_RATE_LIMIT_MAX: '100' });
    const http = request(app.app.callback());
    await http.post('/api/auth/refresh').expect(401); // connected and counting
    await redis.stop();

    const started = Date.now();
    const refused = await http
      .post('/api/auth/login')
      .send({ email: 'demo@example.com', password: 'demo-password' })
      .expect(503);
    console.log(`rate limiter with Redis down answered 503 in ${Date.now() - started} ms`);
    expect(refused.body).toEqual({ status: 'fail', message: expect.any(String) });
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['set-cookie']).toBeUndefined();
    await http.get('/').expect(200);
    expect(app.logLines().filter((line) => String(line.msg).includes('rate limiter unavailable'))).toHaveLength(1);
    const closing = Date.now();
    await apps.splice(0).map((each) => each.close())[0];
    console.log(`app with Redis down closed in ${Date.now() - closing} ms`);
  });
});

describe('auth rate limit with REDIS_URL pointing at nothing', () => {
  it('refuses auth requests with 503 within about the command timeout, and closes promptly', async () => {
    const nothing = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const app = await buildAuthApp({ REDIS_URL: `redis://127.0.0.1:${nothing}` });
    try {
      const started = Date.now();
      await request(app.app.callback()).post('/api/auth/refresh').expect(503);
      console.log(`unreachable Redis: 503 after ${Date.now() - started} ms`);
      await request(app.app.callback()).get('/').expect(200);
    } finally {
      await app.close();
    }
  });
});
