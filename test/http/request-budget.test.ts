import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { findRedisServer, startRedisServer, type RedisServer } from '../support/redis-server';
import { probeModule } from '../support/probe-module';
import { buildTestApp, type TestApp } from '../support/test-app';

// The per-user request budget on authenticated routes (USER_RATE_LIMIT_*): real HTTP through the app,
// counted in memory, and in a real Redis shared by two apps (two replicas, one budget).

const BUDGET = { USER_STORE: 'database', USER_RATE_LIMIT_MAX: '3', USER_RATE_LIMIT_WINDOW: '1m' };

async function spend(t: TestApp, authorization: string, times: number): Promise<request.Response[]> {
  const answers: request.Response[] = [];
  for (let i = 0; i < times; i += 1)
    answers.push(await request(t.app.callback()).get('/api/probe/me').set('Authorization', authorization));
  return answers;
}

describe('per-user request budget, in memory', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: BUDGET, modules: [probeModule()] });
  });
  afterAll(() => t.close());

  it('counts each authenticated request of a user, then answers 429 with Retry-After until the window ends', async () => {
    const { authorization } = await t.signIn('user');
    const answers = await spend(t, authorization, 4);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    for (const answer of answers) expect(answer.headers['ratelimit-limit']).toBe('3');
    const refused = answers[3]!;
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(refused.body).toEqual({
      status: 'fail',
      message: `Too many requests from this user; try again in ${retryAfter} seconds`,
    });
    // Role routes count on the same budget.
    await request(t.app.callback()).get('/api/probe/admin').set('Authorization', authorization).expect(429);
  });

  it('is in the served document: 429 with Retry-After and the counters on authenticated routes, nothing on public ones', async () => {
    const doc = (await request(t.app.callback()).get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    };
    const me = doc.paths['/api/probe/me']!.get!.responses;
    expect(Object.keys(me['429']!.headers!).sort()).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'X-Request-Id',
    ]);
    expect(Object.keys(me['200']!.headers!)).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    const open = doc.paths['/api/probe/public']!.get!.responses;
    expect(open['429']).toBeUndefined();
    expect(Object.keys(open['200']!.headers!)).toEqual(['X-Request-Id']);
  });

  it('one user spending the budget leaves another user theirs', async () => {
    const spender = await t.signIn('user');
    const other = await t.signIn('user');
    await spend(t, spender.authorization, 4);
    const [answer] = await spend(t, other.authorization, 1);
    expect(answer!.status).toBe(200);
    expect(answer!.headers['ratelimit-remaining']).toBe('2');
  });

  it('does not count exempt roles (admin by default), public routes, or requests refused before the caller is known', async () => {
    const admin = await t.signIn('admin');
    const answers = await spend(t, admin.authorization, 5);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]!.headers['ratelimit-limit']).toBeUndefined();
    const open = await request(t.app.callback()).get('/api/probe/public').expect(200);
    expect(open.headers['ratelimit-limit']).toBeUndefined();
    const user = await t.signIn('user');
    for (let i = 0; i < 4; i += 1)
      await request(t.app.callback()).get('/api/probe/me').set('Authorization', 'Bearer not.a.token').expect(401);
    expect((await spend(t, user.authorization, 1))[0]!.headers['ratelimit-remaining']).toBe('2');
  });
});

describe('per-user request budget, configuration', () => {
  it('is off with USER_RATE_LIMIT_MAX=0, and exempts the roles USER_RATE_LIMIT_EXEMPT_ROLES names', async () => {
    const off = await buildTestApp({ env: { ...BUDGET, USER_RATE_LIMIT_MAX: '0' }, modules: [probeModule()] });
    try {
      const answers = await spend(off, (await off.signIn('user')).authorization, 4);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(answers[0]!.headers['ratelimit-limit']).toBeUndefined();
    } finally {
      await off.close();
    }
    const nobodyExempt = await buildTestApp({
      env: { ...BUDGET, USER_RATE_LIMIT_EXEMPT_ROLES: ' ' },
      modules: [probeModule()],
    });
    try {
      const answers = await spend(nobodyExempt, (await nobodyExempt.signIn('admin')).authorization, 4);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    } finally {
      await nobodyExempt.close();
    }
  });
});

const redisBinary = findRedisServer();
if (!redisBinary) process.stdout.write('per-user request budget in Redis: skipped (redis-server is not installed)\n');

(redisBinary ? describe : describe.skip)('per-user request budget, in Redis', () => {
  let redis: RedisServer;
  const replicas: TestApp[] = [];
  let directory: string;
  beforeAll(async () => {
    redis = await startRedisServer(redisBinary!);
    // Two replicas: one database file (the same users), one Redis.
    directory = mkdtempSync(join(tmpdir(), 'request-budget-'));
    const env = { ...BUDGET, REDIS_URL: redis.url, DATABASE_URL: `sqlite:${join(directory, 'db.sqlite')}` };
    replicas.push(await buildTestApp({ env, modules: [probeModule()] }));
    replicas.push(await buildTestApp({ env, modules: [probeModule()] }));
  }, 30_000);
  afterAll(async () => {
    for (const t of replicas) await t.close();
    await redis?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('counts a user across replicas: one budget, then 429 with Retry-After', async () => {
    const { authorization } = await replicas[0]!.signIn('user');
    const answers = [
      ...(await spend(replicas[0]!, authorization, 2)),
      ...(await spend(replicas[1]!, authorization, 2)),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    expect(Number(answers[3]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('lets requests through, uncounted, while Redis is down (fail open), and logs it', async () => {
    const t = replicas[0]!;
    const { authorization } = await t.signIn('user');
    await redis.stop();
    const [answer] = await spend(t, authorization, 1);
    expect(answer!.status).toBe(200);
    expect(answer!.headers['ratelimit-limit']).toBeUndefined();
    expect(
      t.logLines().some((line) => line.msg === 'user request budget unavailable: requests let through uncounted'),
    ).toBe(true);
  }, 20_000);
});
