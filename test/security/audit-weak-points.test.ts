import jwt from 'jsonwebtoken';
import request from 'supertest';
import { authModule } from '../../src/modules/auth';
import { usersModule } from '../../src/modules/users';
import { DEMO, buildAuthApp, login } from '../support/auth-helpers';
import { probeModule } from '../support/probe-module';
import { buildTestApp, TEST_SECRETS, type TestApp } from '../support/test-app';

// The second audit's weak points, each on real HTTP: token lifetimes a leaked key could stretch, weak
// passwords a list alone let through, NUL characters that engines store differently, and proxies that
// write the client's port into X-Forwarded-For.

const now = () => Math.floor(Date.now() / 1000);

describe('token lifetimes are bounded on verify', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ modules: [authModule, usersModule] });
  });
  afterAll(() => t.close());

  const access = (claims: object) =>
    jwt.sign(
      { sub: 'demo', role: 'user', sv: 0, typ: 'access', iss: 'koa-api-service', aud: 'koa-api-service', ...claims },
      TEST_SECRETS.JWT_SECRET,
      {
        header: { alg: 'HS256', typ: 'at+jwt' },
      },
    );
  const me = (token: string) => request(t.app.callback()).get('/api/users/me').set('Authorization', `Bearer ${token}`);

  it('refuses a signed access token whose exp lies years after its iat, or whose iat is older than the lifetime', async () => {
    await me(access({ iat: now(), exp: now() + 900 })).expect(200); // the control: what the service issues
    await me(access({ iat: now(), exp: now() + 10 * 365 * 86_400 })).expect(401);
    await me(access({ iat: now(), exp: 1e300 })).expect(401);
    // The session version is a count, never assumed: a token without it, or with null or text, is refused.
    for (const sv of [undefined, null, '0', -1, 0.5])
      await me(access({ iat: now(), exp: now() + 900, sv })).expect(401);
    await me(access({ iat: now() - 3600, exp: now() + 60 })).expect(401);
  });

  it('refuses a signed refresh token that lives longer than seven days', async () => {
    const refresh = jwt.sign(
      {
        typ: 'refresh',
        sv: 0,
        sub: 'demo',
        iss: 'koa-api-service',
        aud: 'koa-api-service',
        iat: now(),
        exp: now() + 30 * 86_400,
        jti: 'x'.repeat(22),
      },
      TEST_SECRETS.REFRESH_TOKEN_SECRET,
    );
    expect(t.services.tokens.verifyRefreshToken(refresh)).toBeUndefined();
    const withoutVersion = jwt.sign(
      {
        typ: 'refresh',
        sub: 'demo',
        iss: 'koa-api-service',
        aud: 'koa-api-service',
        iat: now(),
        exp: now() + 86_400,
        jti: 'y'.repeat(22),
      },
      TEST_SECRETS.REFRESH_TOKEN_SECRET,
    );
    expect(t.services.tokens.verifyRefreshToken(withoutVersion)).toBeUndefined();
    const proof = { authTime: now() - 60, amr: ['pwd'] };
    expect(
      t.services.tokens.verifyRefreshToken(
        t.services.tokens.signRefreshToken({ userId: 'demo', sessionVersion: 3, proof }).token,
      ),
    ).toEqual({ userId: 'demo', sessionVersion: 3, proof });
  });
});

describe("passwords are judged by strength (zxcvbn-ts), with the user's own details", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildAuthApp({ USER_STORE: 'database', AUTH_REGISTRATION: 'true' });
  });
  afterAll(() => t.close());
  const register = (email: string, password: string, name = 'Grace Hopper') =>
    request(t.app.callback()).post('/api/auth/register').send({ name, email, password });

  it.each([
    'aaaaaaaaaaaa',
    'abcdefghijkl',
    'qwertyuiopas',
    'iloveyou1234',
    'P@ssw0rd2024',
    'letmeinletmein',
    ' '.repeat(12),
    'gracehopper1',
  ])('registration refuses %j with 422 on password, storing nothing', async (password) => {
    const res = await register('grace@example.com', password).expect(422);
    expect(res.body.errors).toEqual([{ field: 'password', message: expect.any(String) }]);
  });

  it('accepts a passphrase, and a password change refuses the current password in other case', async () => {
    await register('ada@example.com', 'mangle orbit velvet canyon').expect(201);
    const session = await login(t, { email: 'ada@example.com', password: 'mangle orbit velvet canyon' });
    const res = await request(t.app.callback())
      .post('/api/auth/password')
      .set('Authorization', `Bearer ${session.accessToken}`)
      .send({ currentPassword: 'mangle orbit velvet canyon', newPassword: 'MANGLE ORBIT VELVET CANYON' })
      .expect(422);
    expect(res.body.errors).toEqual([{ field: 'newPassword', message: 'must differ from the current password' }]);
  });

  it('refuses twelve NUL characters as text, before any policy', async () => {
    const res = await register('nul@example.com', '\u0000'.repeat(12)).expect(422);
    expect(res.body.errors).toEqual([{ field: 'password', message: 'must not contain the NUL character (U+0000)' }]);
  });
});

describe('U+0000 is refused in any text the request carries (same answer on every engine)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ modules: [probeModule()] });
  });
  afterAll(() => t.close());

  it('in a body value, a nested value and a property name; in a query value', async () => {
    const post = (body: object) => request(t.app.callback()).post('/api/probe/things').send(body);
    expect((await post({ name: 'a\u0000b' }).expect(422)).body.errors).toEqual([
      { field: 'name', message: 'must not contain the NUL character (U+0000)' },
    ]);
    expect((await post({ name: 'ok', tags: ['x', 'y\u0000'] }).expect(422)).body.errors[0].field).toBe('tags.1');
    expect((await post({ ['k\u0000']: 1 }).expect(422)).body.errors[0].field).toBe('k\u0000');
    const query = await request(t.app.callback()).get('/api/probe/search?q=a%00b').expect(422);
    expect(query.body.errors).toEqual([{ field: 'query.q', message: 'must not contain the NUL character (U+0000)' }]);
  });
});

describe('X-Forwarded-For entries with a port', () => {
  it('count as the address: ip:port and [v6]:port share the counter of the bare address', async () => {
    const t = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '3', TRUST_PROXY: '1' });
    try {
      const from = (ip: string) => request(t.app.callback()).get('/api/auth/nothing').set('X-Forwarded-For', ip);
      await from('203.0.113.7').expect(404);
      await from('203.0.113.7:51234').expect(404);
      await from('203.0.113.7:40000').expect(404);
      await from('203.0.113.7').expect(429);
      await from('[2001:db8:5::1]:443').expect(404);
      await from('2001:db8:5::2').expect(404);
      await from('[2001:db8:5::3]').expect(404);
      await from('2001:db8:5::4').expect(429);
      await login(t, DEMO).catch(() => undefined); // the demo login from the test's own address is not affected
    } finally {
      await t.close();
    }
  });
});
