import request from 'supertest';
import { buildTestApp, type TestApp } from '../support/test-app';
import { probeModule } from '../support/probe-module';

describe('envelope, errors and cross-cutting headers', () => {
  let t: TestApp;
  const server = () => t.app.callback();

  beforeAll(async () => {
    t = await buildTestApp({ modules: [probeModule()], env: { CORS_ORIGINS: 'https://app.example.com' } });
  });
  afterAll(() => t.close());

  it('GET / answers 200 with the success envelope and a welcome message', async () => {
    const res = await request(server())
      .get('/')
      .expect(200)
      .expect('Content-Type', /application\/json/);
    expect(res.body).toEqual({ status: 'success', data: { message: expect.any(String) } });
    expect(res.body.data.message.length).toBeGreaterThan(0);
  });

  it('an unknown path is a 404 fail envelope', async () => {
    const res = await request(server()).get('/nope').expect(404);
    expect(res.body).toEqual({ status: 'fail', message: expect.any(String) });
    await request(server()).post('/api/nothing/here').send({}).expect(404);
  });

  it('a known path with another method is a 405 fail envelope with Allow', async () => {
    const res = await request(server()).delete('/').expect(405);
    expect(res.body).toEqual({ status: 'fail', message: expect.any(String) });
    expect(res.headers.allow).toMatch(/GET/);
    const put = await request(server()).put('/api/probe/things').send({}).expect(405);
    expect(put.headers.allow).toBe('POST');
  });

  it('OPTIONS on a known path answers 204 with Allow and no body', async () => {
    const res = await request(server()).options('/api/probe/things').expect(204);
    expect(res.headers.allow).toBe('POST');
    expect(res.text).toBe('');
  });

  it('an unexpected error is a 500 envelope that tells nothing, logged with the request id', async () => {
    const res = await request(server()).get('/api/probe/boom').set('X-Request-Id', 'trace-500').expect(500);
    expect(res.body).toEqual({ status: 'fail', message: 'Internal server error' });
    expect(res.text).not.toMatch(/hunter2|SELECT|ECONNREFUSED|at /);
    const logged = t.logLines().find((line) => line.msg === 'unhandled error' && line.reqId === 'trace-500');
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).toMatch(/ECONNREFUSED/);
  });

  it('keeps a sane X-Request-Id and replaces anything else', async () => {
    const kept = await request(server()).get('/').set('X-Request-Id', 'abc-123_x.y:z').expect(200);
    expect(kept.headers['x-request-id']).toBe('abc-123_x.y:z');
    const forged = await request(server()).get('/').set('X-Request-Id', 'bad id\twith "quotes"').expect(200);
    expect(forged.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await request(server()).get('/nope').expect(404);
    expect(missing.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs one line per request with method, path, status, duration and id, never the credentials', async () => {
    await request(server())
      .get('/api/probe/me')
      .set('X-Request-Id', 'log-line-1')
      .set('Authorization', 'Bearer not.a.token')
      .set('Cookie', 'refreshToken=secret-cookie');
    const lines = t.logLines().filter((line) => line.reqId === 'log-line-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', method: 'GET', path: '/api/probe/me', status: 401, level: 30 });
    expect(typeof lines[0].ms).toBe('number');
    expect(JSON.stringify(t.logLines())).not.toMatch(/secret-cookie|not\.a\.token/);
  });

  it('logs health probes below info', async () => {
    await request(server()).get('/health/live').set('X-Request-Id', 'probe-live').expect(200);
    const line = t.logLines().find((entry) => entry.reqId === 'probe-live');
    expect(line?.level).toBe(20);
  });

  it('sets security headers on every response', async () => {
    const res = await request(server()).get('/nope');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers CORS for listed origins only, with credentials', async () => {
    const listed = await request(server())
      .options('/api/probe/things')
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .expect(204);
    expect(listed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(listed.headers['access-control-allow-credentials']).toBe('true');
    const other = await request(server()).get('/').set('Origin', 'https://evil.example.net').expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    // Whether CORS headers come depends on Origin, listed or not, so caches must key on it: once, never twice.
    expect(listed.headers.vary).toBe('Origin');
    expect(other.headers.vary).toBe('Origin');
    expect((await request(server()).get('/').expect(200)).headers.vary).toBe('Origin');
    const listedGet = await request(server()).get('/').set('Origin', 'https://app.example.com').expect(200);
    expect(listedGet.headers.vary).toBe('Origin');
  });
});
