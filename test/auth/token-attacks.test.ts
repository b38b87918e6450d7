import { createHmac, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { digestRefreshToken } from '../../src/auth/refresh-sessions';
import { buildAuthApp, clearsRefreshCookie, login, setCookies, type Session } from '../support/auth-helpers';
import { TEST_SECRETS, type TestApp } from '../support/test-app';
import { refreshTokenStore } from '../../src/auth/stores/definitions';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT signed by hand, so the header can claim anything (jsonwebtoken refuses to make some of these). */
function handMade(header: object, payload: object, key: string | undefined, hash = 'sha256'): string {
  const unsigned = `${b64(header)}.${b64(payload)}`;
  return `${unsigned}.${key === undefined ? '' : createHmac(hash, key).update(unsigned).digest('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);
// Each forged token is right in every claim but the one its case is about, so it is refused for that reason.
const CLAIMED = { iss: 'koa-api-service', aud: 'koa-api-service' };
const accessClaims = () => ({
  sub: 'demo',
  role: 'user',
  sv: 0,
  typ: 'access',
  jti: 'x',
  ...CLAIMED,
  iat: now(),
  exp: now() + 900,
});
const refreshClaims = () => ({
  sub: 'demo',
  typ: 'refresh',
  sv: 0,
  jti: randomBytes(16).toString('base64url'),
  ...CLAIMED,
  iat: now(),
  exp: now() + 3600,
});

describe('forged, tampered, expired and swapped tokens', () => {
  let app: TestApp;
  let http: ReturnType<typeof request>;
  let session: Session;

  beforeAll(async () => {
    app = await buildAuthApp();
    http = request(app.app.callback());
    session = await login(app);
  });
  afterAll(() => app.close());

  describe('as Bearer on an authenticated route (logout): 401, and the session survives', () => {
    const cases: [string, () => string][] = [
      ['alg none', () => handMade({ alg: 'none', typ: 'JWT' }, accessClaims(), undefined)],
      [
        'HS384 with the real secret',
        () => handMade({ alg: 'HS384', typ: 'JWT' }, accessClaims(), TEST_SECRETS.JWT_SECRET, 'sha384'),
      ],
      [
        'HS512 with the real secret',
        () => handMade({ alg: 'HS512', typ: 'JWT' }, accessClaims(), TEST_SECRETS.JWT_SECRET, 'sha512'),
      ],
      [
        'HS256 with another secret',
        () => jwt.sign(accessClaims(), randomBytes(48).toString('hex'), { algorithm: 'HS256' }),
      ],
      [
        'an expired access token',
        () =>
          jwt.sign({ ...accessClaims(), iat: now() - 1000, exp: now() - 100 }, TEST_SECRETS.JWT_SECRET, {
            algorithm: 'HS256',
          }),
      ],
      ['a refresh token', () => session.refreshToken],
      [
        'an access-typed token signed with the refresh secret',
        () => jwt.sign(accessClaims(), TEST_SECRETS.REFRESH_TOKEN_SECRET, { algorithm: 'HS256' }),
      ],
      [
        'a token with no typ',
        () => jwt.sign({ sub: 'demo', role: 'user' }, TEST_SECRETS.JWT_SECRET, { algorithm: 'HS256', expiresIn: 900 }),
      ],
      [
        'a tampered payload (role admin)',
        () => {
          const [header, , signature] = session.accessToken.split('.');
          return `${header}.${b64({ ...accessClaims(), role: 'admin' })}.${signature}`;
        },
      ],
      ['garbage', () => 'abc.def.ghi'],
    ];

    it.each(cases)('%s', async (_case, token) => {
      const response = await http
        .post('/api/auth/logout')
        .set('Authorization', `Bearer ${token()}`)
        .set('Cookie', `refreshToken=${session.refreshToken}`)
        .expect(401);
      expect(response.body).toEqual({ status: 'fail', message: expect.any(String) });
      expect(setCookies(response)).toEqual([]);
      expect(
        await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(session.refreshToken)),
      ).not.toBeNull();
    });

    it('the genuine access token is accepted (control)', async () => {
      const control = await login(app);
      await http
        .post('/api/auth/logout')
        .set('Authorization', `Bearer ${control.accessToken}`)
        .set('Cookie', `refreshToken=${control.refreshToken}`)
        .expect(204);
    });
  });

  describe('as the refresh cookie: 401, fail envelope, cookie cleared', () => {
    const cases: [string, () => string | undefined | Promise<string>][] = [
      ['no cookie', () => undefined],
      ['an empty cookie', () => ''],
      ['garbage', () => 'not-a-jwt'],
      ['an access token', () => session.accessToken],
      [
        'a tampered refresh token (other subject)',
        () => {
          const [header, , signature] = session.refreshToken.split('.');
          return `${header}.${b64({ ...refreshClaims(), sub: 'someone-else' })}.${signature}`;
        },
      ],
      [
        'a refresh token signed with another secret',
        () => jwt.sign(refreshClaims(), randomBytes(48).toString('hex'), { algorithm: 'HS256' }),
      ],
      ['alg none', () => handMade({ alg: 'none', typ: 'JWT' }, refreshClaims(), undefined)],
      [
        'HS512 with the real refresh secret',
        () => handMade({ alg: 'HS512', typ: 'JWT' }, refreshClaims(), TEST_SECRETS.REFRESH_TOKEN_SECRET, 'sha512'),
      ],
      [
        'a validly signed refresh token the store never saw',
        () => jwt.sign(refreshClaims(), TEST_SECRETS.REFRESH_TOKEN_SECRET, { algorithm: 'HS256' }),
      ],
      [
        'an expired refresh token (signature expired)',
        async () => {
          const token = jwt.sign(
            { ...refreshClaims(), iat: now() - 7200, exp: now() - 60 },
            TEST_SECRETS.REFRESH_TOKEN_SECRET,
            { algorithm: 'HS256' },
          );
          await app.services.database
            .store(refreshTokenStore)
            .create({ userId: 'demo', token: digestRefreshToken(token), expiresAt: new Date(Date.now() + 3600_000) });
          return token;
        },
      ],
      [
        'a stored record past its expiresAt (not yet cleaned up)',
        async () => {
          const token = jwt.sign(refreshClaims(), TEST_SECRETS.REFRESH_TOKEN_SECRET, { algorithm: 'HS256' });
          await app.services.database
            .store(refreshTokenStore)
            .create({ userId: 'demo', token: digestRefreshToken(token), expiresAt: new Date(Date.now() - 1000) });
          return token;
        },
      ],
      [
        'a stored record owned by another user than the token says',
        async () => {
          const token = jwt.sign(refreshClaims(), TEST_SECRETS.REFRESH_TOKEN_SECRET, { algorithm: 'HS256' });
          await app.services.database.store(refreshTokenStore).create({
            userId: 'intruder',
            token: digestRefreshToken(token),
            expiresAt: new Date(Date.now() + 3600_000),
          });
          return token;
        },
      ],
      [
        'a refresh token for a user that no longer exists',
        async () => {
          const token = jwt.sign({ ...refreshClaims(), sub: 'deleted-user' }, TEST_SECRETS.REFRESH_TOKEN_SECRET, {
            algorithm: 'HS256',
          });
          await app.services.database.store(refreshTokenStore).create({
            userId: 'deleted-user',
            token: digestRefreshToken(token),
            expiresAt: new Date(Date.now() + 3600_000),
          });
          return token;
        },
      ],
    ];

    it.each(cases)('%s', async (_case, cookie) => {
      const value = await cookie();
      const call = http.post('/api/auth/refresh');
      if (value !== undefined) void call.set('Cookie', `refreshToken=${value}`);
      const response = await call.expect(401);
      expect(response.body).toEqual({ status: 'fail', message: 'Invalid or expired refresh token' });
      expect(clearsRefreshCookie(response)).toBe(true);
    });
  });
});
