import request from 'supertest';
import { BoundedMap, createRateLimitStore, MEMORY_STORE_MAX_ENTRIES } from '../../src/auth/rate-limit-store';
import { Lifecycle } from '../../src/lifecycle/lifecycle';
import { buildAuthApp, DEMO } from '../support/auth-helpers';
import { memoryLogger, type TestApp } from '../support/test-app';

describe('auth rate limit, memory store (AUTH_RATE_LIMIT_MAX=10 per 15m, per client IP)', () => {
  let app: TestApp;
  let http: ReturnType<typeof request>;

  beforeEach(async () => {
    app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '10' });
    http = request(app.app.callback());
  });
  afterEach(() => app.close());

  /** Ten requests spread over every kind of /api/auth path: they all count against one limit. */
  async function spendTen(headers: Record<string, string> = {}): Promise<void> {
    const calls = [
      () => http.post('/api/auth/login').set(headers).send(DEMO),
      () =>
        http
          .post('/api/auth/login')
          .set(headers)
          .send({ ...DEMO, password: 'wrong-password' }),
      () => http.post('/api/auth/login').set(headers).send({}),
      () => http.post('/api/auth/refresh').set(headers),
      () => http.post('/api/auth/logout').set(headers),
      () => http.get('/api/auth/no-such-route').set(headers),
      () => http.get('/api/auth').set(headers),
      () => http.post('/api/auth/register').set(headers).send({}),
      () => http.post('/api/auth/refresh').set(headers).set('Cookie', 'refreshToken=x'),
      () => http.post('/api/auth/login').set(headers).send(DEMO),
    ];
    for (const [index, call] of calls.entries()) {
      const response = await call();
      expect(response.status).not.toBe(429);
      expect(response.headers['ratelimit-limit']).toBe('10');
      expect(response.headers['ratelimit-remaining']).toBe(String(9 - index));
      const reset = Number(response.headers['ratelimit-reset']);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(900); // seconds until the window ends, not an epoch timestamp
    }
  }

  it('the 11th /api/auth request is 429 with our envelope and headers; GET / and health are unaffected', async () => {
    await spendTen();
    const limited = await http.post('/api/auth/login').send(DEMO).expect(429);
    expect(limited.body).toEqual({
      status: 'fail',
      message: expect.stringMatching(/^Too many authentication requests/),
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(limited.headers['ratelimit-limit']).toBe('10');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(limited.headers['set-cookie']).toBeUndefined();

    await http.post('/api/auth/refresh').expect(429);
    await http.get('/api/auth/anything').expect(429);
    const home = await http.get('/').expect(200);
    expect(home.headers['ratelimit-limit']).toBeUndefined();
    await http.get('/health/live').expect(200);
  });

  it('with TRUST_PROXY=0 a forged X-Forwarded-For does not buy a new counter', async () => {
    await spendTen({ 'X-Forwarded-For': '203.0.113.1' });
    await http.post('/api/auth/login').set('X-Forwarded-For', '203.0.113.2').send(DEMO).expect(429);
    await http.post('/api/auth/login').set('X-Forwarded-For', '198.51.100.7, 203.0.113.3').send(DEMO).expect(429);
    await http.post('/api/auth/login').send(DEMO).expect(429);
  });
});

describe('auth rate limit behind one trusted proxy (TRUST_PROXY=1)', () => {
  it('counts per forwarded client address, and only the hop the proxy added is believed', async () => {
    const app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '2', TRUST_PROXY: '1' });
    try {
      const http = request(app.app.callback());
      const from = (xff: string) => http.post('/api/auth/refresh').set('X-Forwarded-For', xff);
      await from('203.0.113.10').expect(401);
      await from('203.0.113.10').expect(401);
      await from('203.0.113.10').expect(429);
      // A client forging an earlier hop: the proxy appends the real address, which is what counts.
      await from('198.51.100.99, 203.0.113.10').expect(429);
      // Another real client has its own counter.
      await from('203.0.113.20').expect(401);
    } finally {
      await app.close();
    }
  });
});

describe('auth rate limit window', () => {
  it('opens again once the window has passed', async () => {
    const app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '1', AUTH_RATE_LIMIT_WINDOW: '1s' });
    try {
      const http = request(app.app.callback());
      await http.post('/api/auth/refresh').expect(401);
      await http.post('/api/auth/refresh').expect(429);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await http.post('/api/auth/refresh').expect(401);
    } finally {
      await app.close();
    }
  });
});

describe('BoundedMap (the memory store stays within its ceiling)', () => {
  const entry = (reset: number) => ({ reset, remaining: 1, total: 1 });

  it('never holds more than maxEntries; the oldest window goes first', () => {
    const map = new BoundedMap<string, ReturnType<typeof entry>>(3);
    for (const [index, key] of ['a', 'b', 'c', 'd', 'e'].entries()) map.set(key, entry(index));
    expect(map.size).toBe(3);
    expect([...map.keys()]).toEqual(['c', 'd', 'e']);
    expect(map instanceof Map).toBe(true); // koa-ratelimit's memory driver insists on a Map
  });

  it('a re-initialised window moves its key to the end', () => {
    const map = new BoundedMap<string, ReturnType<typeof entry>>(3);
    map.set('a', entry(1));
    map.set('b', entry(2));
    map.set('c', entry(3));
    map.set('a', entry(4)); // a's window ended and began again
    map.set('d', entry(5));
    expect([...map.keys()]).toEqual(['c', 'a', 'd']);
  });

  it('is what the memory store hands koa-ratelimit, at MEMORY_STORE_MAX_ENTRIES', () => {
    const store = createRateLimitStore({ redisUrl: undefined }, memoryLogger().logger, new Lifecycle());
    expect(store.driver).toBe('memory');
    expect(store.db).toBeInstanceOf(BoundedMap);
    expect((store.db as BoundedMap<string, { reset: number }>).maxEntries).toBe(MEMORY_STORE_MAX_ENTRIES);
  });
});
