import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { buildTestApp, TEST_SECRETS, type TestApp } from '../support/test-app';
import { probeModule } from '../support/probe-module';

/** A JWT with any header and claims, signed with HMAC-SHA256 by hand (or unsigned for alg none). */
function handMadeToken(header: object, claims: object, secret?: string): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const unsigned = `${encode(header)}.${encode(claims)}`;
  const signature = secret ? createHmac('sha256', secret).update(unsigned).digest('base64url') : '';
  return `${unsigned}.${signature}`;
}

describe('route access rules: token check, then role check, then validation', () => {
  let t: TestApp;
  const api = () => request(t.app.callback());
  const now = () => Math.floor(Date.now() / 1000);
  let userId: string;
  const accessClaims = (role: string) => ({
    sub: userId,
    role,
    sv: 0,
    typ: 'access',
    iss: 'koa-api-service',
    aud: 'koa-api-service',
    iat: now(),
    exp: now() + 60,
  });
  const as = async (role: string) => (await t.signIn(role)).authorization;

  beforeAll(async () => {
    t = await buildTestApp({ env: { USER_STORE: 'database' }, modules: [probeModule()] });
    userId = (await t.signIn('user')).id;
  });
  afterAll(() => t.close());

  it('public routes need no token', async () => {
    await api().get('/api/probe/public').expect(200);
  });

  it('401 without a token, with a fail envelope', async () => {
    const res = await api().get('/api/probe/me').expect(401);
    expect(res.body).toEqual({ status: 'fail', message: expect.any(String) });
    await api().get('/api/probe/me').set('Authorization', 'Basic dXNlcjpwYXNz').expect(401);
    await api().get('/api/probe/me').set('Authorization', 'Bearer').expect(401);
  });

  it('200 with a valid token, and the handler sees { id, role }', async () => {
    const { id, authorization } = await t.signIn('user');
    const res = await api().get('/api/probe/me').set('Authorization', authorization).expect(200);
    expect(res.body.data.user).toEqual({ id, role: 'user' });
  });

  it.each([
    ['garbage', () => 'abc.def.ghi'],
    [
      'expired',
      () => jwt.sign({ ...accessClaims('user'), iat: now() - 120, exp: now() - 60 }, TEST_SECRETS.JWT_SECRET),
    ],
    ['alg none', () => handMadeToken({ alg: 'none', typ: 'JWT' }, accessClaims('admin'))],
    [
      'HS512 with the real secret',
      () => jwt.sign(accessClaims('user'), TEST_SECRETS.JWT_SECRET, { algorithm: 'HS512' }),
    ],
    [
      'HS384 with the real secret',
      () => jwt.sign(accessClaims('user'), TEST_SECRETS.JWT_SECRET, { algorithm: 'HS384' }),
    ],
    ['another secret', () => jwt.sign(accessClaims('user'), 'another-secret-of-sufficient-length-0123456789')],
    ['the refresh secret', () => jwt.sign(accessClaims('user'), TEST_SECRETS.REFRESH_TOKEN_SECRET)],
    [
      'a refresh token',
      () => t.services.tokens.signRefreshToken({ userId, sessionVersion: 0, proof: { authTime: 0, amr: [] } }).token,
    ],
    ['no typ claim', () => jwt.sign({ sub: userId, role: 'user' }, TEST_SECRETS.JWT_SECRET, { expiresIn: 60 })],
    ['no subject', () => jwt.sign({ role: 'user', typ: 'access' }, TEST_SECRETS.JWT_SECRET, { expiresIn: 60 })],
    [
      'a tampered payload',
      () => {
        const [header, , signature] = t.services.tokens
          .signAccessToken({ id: userId, role: 'user', sessionVersion: 0 })
          .split('.');
        return `${header}.${Buffer.from(JSON.stringify(accessClaims('admin'))).toString('base64url')}.${signature}`;
      },
    ],
  ])('401 for %s', async (_name, makeToken) => {
    const res = await api().get('/api/probe/me').set('Authorization', `Bearer ${makeToken()}`).expect(401);
    expect(res.body.status).toBe('fail');
  });

  it('a hand-made HS256 token with the real secret passes (the check is the signature, not the library)', async () => {
    const token = handMadeToken({ alg: 'HS256', typ: 'at+jwt' }, accessClaims('user'), TEST_SECRETS.JWT_SECRET);
    await api().get('/api/probe/me').set('Authorization', `Bearer ${token}`).expect(200);
  });

  it('403 for an authenticated caller without a permitted role; 200 for any listed role', async () => {
    const res = await api()
      .get('/api/probe/admin')
      .set('Authorization', await as('user'))
      .expect(403);
    expect(res.body).toEqual({ status: 'fail', message: expect.any(String) });
    for (const role of ['admin', 'owner']) {
      await api()
        .get('/api/probe/admin')
        .set('Authorization', await as(role))
        .expect(200);
    }
  });

  it('the role check needs the token check first: no token on a role route is 401, not 403', async () => {
    await api().get('/api/probe/admin').expect(401);
  });

  it('guards run before validation: a bad body without a token is 401, with the wrong role 403, else 422', async () => {
    await api().post('/api/probe/admin-things').send({}).expect(401);
    await api()
      .post('/api/probe/admin-things')
      .set('Authorization', await as('user'))
      .send({})
      .expect(403);
    await api()
      .post('/api/probe/admin-things')
      .set('Authorization', await as('admin'))
      .send({})
      .expect(422);
  });

  it('a handler that returns nothing answers 204 with no body', async () => {
    const res = await api()
      .delete('/api/probe/things/42')
      .set('Authorization', await as('user'))
      .expect(204);
    expect(res.text).toBe('');
  });
});
