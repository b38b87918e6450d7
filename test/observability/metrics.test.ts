import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '../../src/config/config';
import { authModule } from '../../src/modules/auth';
import { startService, type RunningService } from '../../src/service';
import { DEMO, refreshTokenFrom } from '../support/auth-helpers';
import { probeModule } from '../support/probe-module';
import { memoryLogger, TEST_SECRETS } from '../support/test-app';

// Prometheus metrics on their own listener (METRICS_PORT): the real service, real HTTP on both ports,
// the in-memory SQLite store.

interface Running {
  service: RunningService;
  base: string;
  metricsUrl: string;
}

async function start(env: Record<string, string> = {}): Promise<Running> {
  const config = loadConfig({
    NODE_ENV: 'test',
    ...TEST_SECRETS,
    METRICS_PORT: '9464',
    AUTH_RATE_LIMIT_MAX: '100000',
    ...env,
  });
  const service = await startService(config, memoryLogger().logger, {
    modules: [authModule, probeModule()],
    port: 0,
    metricsPort: 0, // a free port instead of 9464
    host: '127.0.0.1',
  });
  return {
    service,
    base: `http://127.0.0.1:${service.port}`,
    metricsUrl: `http://127.0.0.1:${service.metricsPort}/metrics`,
  };
}

async function scrape(running: Running): Promise<string> {
  const response = await fetch(running.metricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The samples of one metric family: `name{labels} value` lines, comments left out. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics listener', () => {
  let running: Running;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(() => running.service.stop());

  it('shows the request histogram by route template and the auth counters after some traffic', async () => {
    const { base } = running;
    await request(base).get('/').expect(200);
    const loggedIn = await request(base).post('/api/auth/login').send(DEMO).expect(200);
    await request(base)
      .post('/api/auth/login')
      .send({ ...DEMO, password: 'wrong-password' })
      .expect(401);
    await request(base).post('/api/auth/login').send({ email: 'not-an-email' }).expect(422); // never reaches the handler
    await request(base)
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${refreshTokenFrom(loggedIn)}`)
      .expect(200);
    await request(base).post('/api/auth/refresh').set('Cookie', 'refreshToken=forged').expect(401);
    const token = (loggedIn.body as { data: { accessToken: string } }).data.accessToken;
    await request(base).delete('/api/probe/things/42').set('Authorization', `Bearer ${token}`).expect(204);
    await request(base).delete('/api/probe/things/43').set('Authorization', `Bearer ${token}`).expect(204);
    await request(base).get('/api/probe/boom').expect(500);
    await request(base).get('/no/such/path').expect(404);
    await request(base).put('/api/probe/public').expect(405);

    const text = await scrape(running);
    const histogram = 'http_server_request_duration_seconds_count';
    expect(value(text, `${histogram}{method="GET",route="/",status_class="2xx"}`)).toBe(1);
    expect(value(text, `${histogram}{method="POST",route="/api/auth/login",status_class="2xx"}`)).toBe(1);
    expect(value(text, `${histogram}{method="POST",route="/api/auth/login",status_class="4xx"}`)).toBe(2);
    expect(value(text, `${histogram}{method="DELETE",route="/api/probe/things/:id",status_class="2xx"}`)).toBe(2);
    expect(value(text, `${histogram}{method="GET",route="/api/probe/boom",status_class="5xx"}`)).toBe(1);
    expect(value(text, `${histogram}{method="GET",route="unmatched",status_class="4xx"}`)).toBe(1);
    expect(value(text, `${histogram}{method="PUT",route="/api/probe/public",status_class="4xx"}`)).toBe(1); // 405: the path's template
    expect(text).toMatch(
      /http_server_request_duration_seconds_bucket\{le="0\.001",method="GET",route="\/",status_class="2xx"\}/,
    );
    expect(text).not.toMatch(/things\/4[23]|no\/such/); // never a raw path

    expect(value(text, 'auth_login_attempts_total{outcome="success"}')).toBe(1);
    expect(value(text, 'auth_login_attempts_total{outcome="failure"}')).toBe(1);
    expect(value(text, 'auth_login_attempts_total{outcome="throttled"}')).toBe(0);
    expect(value(text, 'auth_refresh_attempts_total{outcome="success"}')).toBe(1);
    expect(value(text, 'auth_refresh_attempts_total{outcome="invalid-token"}')).toBe(1);
    expect(value(text, 'auth_refresh_attempts_total{outcome="unknown-session"}')).toBe(0);
    expect(value(text, 'auth_rate_limited_total')).toBe(0);
    expect(value(text, 'db_client_operation_duration_seconds_count{operation="refresh-tokens.create"}')).toBe(1);
    expect(value(text, 'db_client_operation_duration_seconds_count{operation="refresh-tokens.findByToken"}')).toBe(1); // the forged cookie fails its signature first
    expect(value(text, 'db_client_operation_errors_total{operation="refresh-tokens.create",kind="unavailable"}')).toBe(
      0,
    );
    // The default process metrics.
    expect(samples(text, 'process_cpu_seconds_total')).toHaveLength(1);
    expect(samples(text, 'nodejs_eventloop_lag_p99_seconds')).toHaveLength(1);
    // SQLite has no connection pool to report: no gauge without a producer.
    expect(text).not.toContain('db_client_connections');
  });

  it('keeps the number of series fixed however many distinct paths are requested', async () => {
    const { base } = running;
    const family = (text: string) => samples(text, 'http_server_request_duration_seconds_bucket');
    const burst = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const random = randomBytes(6).toString('hex');
        await request(base).get(`/scan/${random}`).expect(404);
        await request(base).get(`/api/auth/${random}`).expect(404); // under a module, no route
        await request(base).get(`/api/probe/things/${random}`).expect(405); // a template's path, another method
        await request(base).delete(`/api/probe/things/${random}`).expect(401);
        await request(base).get(`/api/probe/public?${random}=1`).expect(200);
      }
    };
    await burst(5);
    const before = family(await scrape(running)).length;
    await burst(60);
    const text = await scrape(running);
    expect(family(text)).toHaveLength(before);
    const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
    expect([...routes].sort()).toEqual(
      [
        '/',
        '/api/auth/login',
        '/api/auth/refresh',
        '/api/probe/boom',
        '/api/probe/public',
        '/api/probe/things/:id',
        'unmatched',
      ].sort(),
    );
  });

  it('is not on the public port, and the metrics port serves nothing else', async () => {
    const publicAnswer = await request(running.base).get('/metrics').expect(404);
    expect(publicAnswer.body).toEqual({ status: 'fail', message: 'No route matches this path' });
    expect((await fetch(running.metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(running.metricsUrl.replace('/metrics', '/api/auth/login'), { method: 'POST' })).status).toBe(
      404,
    );
    expect((await fetch(running.metricsUrl, { method: 'POST' })).status).toBe(405);
  });
});

describe('metrics of the auth rate limit and the stores', () => {
  it('counts throttled logins, and rate-limited requests under the route they were aimed at', async () => {
    const running = await start({ AUTH_RATE_LIMIT_MAX: '3', LOGIN_THROTTLE_FAILURES: '1' });
    try {
      const login = (password: string) =>
        request(running.base)
          .post('/api/auth/login')
          .send({ ...DEMO, password });
      await login('wrong-password').expect(401);
      await login(DEMO.password).expect(429); // throttled: one failure for this account from this client
      await login(DEMO.password).expect(429); // throttled again
      await login(DEMO.password).expect(429); // the fourth request: over the shared rate limit
      const text = await scrape(running);
      expect(value(text, 'auth_login_attempts_total{outcome="failure"}')).toBe(1);
      expect(value(text, 'auth_login_attempts_total{outcome="throttled"}')).toBe(2);
      expect(value(text, 'auth_login_attempts_total{outcome="success"}')).toBe(0);
      expect(value(text, 'auth_rate_limited_total')).toBe(1);
      expect(
        value(
          text,
          'http_server_request_duration_seconds_count{method="POST",route="/api/auth/login",status_class="4xx"}',
        ),
      ).toBe(4);
    } finally {
      await running.service.stop();
    }
  });

  it('counts store errors by kind (a duplicate email on registration), registrations and logouts', async () => {
    const running = await start({ USER_STORE: 'database', AUTH_REGISTRATION: 'true' });
    try {
      const ada = { name: 'Ada', email: 'ada@example.com', password: 'a long passphrase of mine' };
      await request(running.base).post('/api/auth/register').send(ada).expect(201);
      await request(running.base).post('/api/auth/register').send(ada).expect(409);
      const text = await scrape(running);
      expect(value(text, 'db_client_operation_errors_total{operation="users.create",kind="duplicate_key"}')).toBe(1);
      expect(value(text, 'db_client_operation_duration_seconds_count{operation="users.create"}')).toBe(2);
      expect(value(text, 'auth_registrations_total')).toBe(1);
      expect(value(text, 'auth_logouts_total')).toBe(0);
      const session = await request(running.base)
        .post('/api/auth/login')
        .send({ email: ada.email, password: ada.password })
        .expect(200);
      const token = (session.body as { data: { accessToken: string } }).data.accessToken;
      await request(running.base).post('/api/auth/logout').set('Authorization', `Bearer ${token}`).expect(204);
      expect(value(await scrape(running), 'auth_logouts_total')).toBe(1);
    } finally {
      await running.service.stop();
    }
  });

  it('closes the metrics listener when the service stops', async () => {
    const running = await start();
    await scrape(running);
    await running.service.stop();
    await expect(fetch(running.metricsUrl)).rejects.toThrow();
  });
});

describe('metrics listener start-up', () => {
  it('a taken METRICS_PORT stops start-up', async () => {
    const blocker = await start();
    const taken = blocker.service.metricsPort!;
    try {
      const config = loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS, METRICS_PORT: String(taken) });
      await expect(startService(config, memoryLogger().logger, { port: 0, host: '127.0.0.1' })).rejects.toThrow(
        /EADDRINUSE/,
      );
    } finally {
      await blocker.service.stop();
    }
  });
});

describe('metrics off', () => {
  it('with METRICS_PORT unset, no listener and no metrics middleware', async () => {
    const config = loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS });
    const service = await startService(config, memoryLogger().logger, { port: 0, host: '127.0.0.1' });
    try {
      expect(service.metricsPort).toBeUndefined();
      expect(service.services.metrics.enabled).toBe(false);
      expect(service.app.middleware.map((middleware) => middleware.name)).not.toContain('recordRequest');
    } finally {
      await service.stop();
    }
  });
});
