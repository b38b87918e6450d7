import request from 'supertest';
import type { Response } from 'supertest';
import { authModule } from '../../src/modules/auth';
import { DEMO, refreshTokenFrom } from '../support/auth-helpers';
import { DocumentConformance } from '../support/openapi-conformance';
import { probeModule } from '../support/probe-module';
import { buildTestApp, type TestApp } from '../support/test-app';

// Real responses, success and every error class, checked against the document the same app serves: the
// status must be listed for that operation and the body must match that response's schema.

const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '100000' };
const USER = { name: 'Ada', email: 'ada@example.com', password: 'correct horse battery staple' };
const CREDENTIALS = { email: USER.email, password: USER.password };

describe('real responses conform to the served document', () => {
  let t: TestApp;
  let conformance: DocumentConformance;
  const api = () => request(t.app.callback());
  const as = async (role: string) => (await t.signIn(role)).authorization;
  const seen: string[] = [];
  const check = (method: string, template: string, res: Response) => {
    conformance.expectConforms(method, template, res);
    seen.push(String(res.status));
  };

  beforeAll(async () => {
    t = await buildTestApp({ env: ENV, modules: [authModule, probeModule()] });
    conformance = new DocumentConformance((await api().get('/openapi.json').expect(200)).body);
    check('POST', '/api/auth/register', await api().post('/api/auth/register').send(USER).expect(201));
  });
  afterAll(() => t.close());

  it('the system routes', async () => {
    check('GET', '/', await api().get('/').expect(200));
    check('GET', '/health/live', await api().get('/health/live').expect(200));
    check('GET', '/health/ready', await api().get('/health/ready').expect(200));
  });

  it('login: 200, 422, 401, 415, 413, 400', async () => {
    const ok = await api().post('/api/auth/login').send(CREDENTIALS).expect(200);
    check('POST', '/api/auth/login', ok);
    // Documented headers are checked too: a cacheable token answer would not conform.
    const cacheable = {
      ...ok,
      status: ok.status,
      body: ok.body,
      headers: { ...ok.headers, 'cache-control': 'public, max-age=60' },
    } as unknown as Response;
    expect(conformance.problems('POST', '/api/auth/login', cacheable)).toEqual([
      expect.stringMatching(/header Cache-Control/),
    ]);
    check('POST', '/api/auth/login', await api().post('/api/auth/login').send({ email: 'not-an-email' }).expect(422));
    check(
      'POST',
      '/api/auth/login',
      await api()
        .post('/api/auth/login')
        .send({ ...CREDENTIALS, password: 'wrong-password' })
        .expect(401),
    );
    check(
      'POST',
      '/api/auth/login',
      await api().post('/api/auth/login').set('Content-Type', 'text/plain').send('hello').expect(415),
    );
    check(
      'POST',
      '/api/auth/login',
      await api()
        .post('/api/auth/login')
        .send({ email: 'a@b.co', password: 'x'.repeat(200_000) })
        .expect(413),
    );
    check(
      'POST',
      '/api/auth/login',
      await api().post('/api/auth/login').set('Content-Type', 'application/json').send('{"email":').expect(400),
    );
  });

  it('refresh, logout and register', async () => {
    const login = await api().post('/api/auth/login').send(CREDENTIALS).expect(200);
    const cookie = `refreshToken=${refreshTokenFrom(login)}`;
    const access = (login.body as { data: { accessToken: string } }).data.accessToken;
    check('POST', '/api/auth/refresh', await api().post('/api/auth/refresh').set('Cookie', cookie).expect(200));
    check('POST', '/api/auth/refresh', await api().post('/api/auth/refresh').expect(401));
    check(
      'POST',
      '/api/auth/refresh',
      await api().post('/api/auth/refresh').set('Cookie', cookie).set('Origin', 'https://evil.example').expect(403),
    );
    const noToken = await api().post('/api/auth/logout').expect(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    check('POST', '/api/auth/logout', noToken);
    const badToken = await api().post('/api/auth/logout').set('Authorization', 'Bearer a.b.c').expect(401);
    expect(badToken.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    check('POST', '/api/auth/logout', badToken);
    check(
      'POST',
      '/api/auth/logout',
      await api().post('/api/auth/logout').set('Authorization', `Bearer ${access}`).set('Cookie', cookie).expect(204),
    );
    check('POST', '/api/auth/register', await api().post('/api/auth/register').send(USER).expect(409));
  });

  it('a module route with params, query, roles and a declared 404', async () => {
    check('GET', '/api/probe/items/{id}', await api().get('/api/probe/items/3?limit=2').expect(200));
    check('GET', '/api/probe/items/{id}', await api().get('/api/probe/items/x?limit=0').expect(422));
    check('GET', '/api/probe/items/{id}', await api().get('/api/probe/items/404').expect(404));
    check(
      'GET',
      '/api/probe/admin',
      await api()
        .get('/api/probe/admin')
        .set('Authorization', await as('user'))
        .expect(403),
    );
    check(
      'GET',
      '/api/probe/admin',
      await api()
        .get('/api/probe/admin')
        .set('Authorization', await as('admin'))
        .expect(200),
    );
    check('GET', '/api/probe/boom', await api().get('/api/probe/boom').expect(500));
  });

  it('a status the document does not list for the operation is caught', async () => {
    const res = await api().get('/').expect(200);
    const forged = { ...res, status: 404 } as Response;
    expect(conformance.problems('GET', '/', forged)).toEqual([expect.stringMatching(/status not documented/)]);
    const wrongBody = { ...res, body: { status: 'success', data: { message: 42 } } } as Response;
    expect(conformance.problems('GET', '/', wrongBody)).toEqual([
      expect.stringMatching(/data\/message must be string/),
    ]);
  });

  it('covered every error class', () => {
    expect(new Set(seen)).toEqual(
      new Set(['200', '201', '204', '400', '401', '403', '404', '409', '413', '415', '422', '500']),
    );
  });
});

describe('rate-limit and outage answers conform too', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('429 with Retry-After and RateLimit-* headers', async () => {
    t = await buildTestApp({ env: { AUTH_RATE_LIMIT_MAX: '2' }, modules: [authModule] });
    const conformance = new DocumentConformance((await request(t.app.callback()).get('/openapi.json')).body);
    const login = () => request(t.app.callback()).post('/api/auth/login').send(DEMO);
    await login();
    await login();
    const limited = await login();
    expect(limited.status).toBe(429);
    for (const header of ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
      expect(limited.headers[header]).toMatch(/^\d+$/);
    conformance.expectConforms('POST', '/api/auth/login', limited);
  });

  it('503 when the database is unreachable', async () => {
    t = await buildTestApp({ modules: [authModule] });
    const conformance = new DocumentConformance((await request(t.app.callback()).get('/openapi.json')).body);
    await t.services.database.close();
    conformance.expectConforms(
      'GET',
      '/health/ready',
      await request(t.app.callback()).get('/health/ready').expect(503),
    );
  });
});
