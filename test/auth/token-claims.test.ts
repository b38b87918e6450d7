import { createHmac, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { digestRefreshToken } from '../../src/auth/refresh-sessions';
import { buildAuthApp, clearsRefreshCookie, login } from '../support/auth-helpers';
import { TEST_SECRETS, type TestApp } from '../support/test-app';
import { refreshTokenStore } from '../../src/auth/stores/definitions';

// RFC 8725 claim checks on real HTTP: issuer and audience, the access token's JOSE `typ`, a numeric `exp`,
// and an `iat` no further ahead than the clock skew. Access tokens are addressed to JWT_AUDIENCE (set to
// differ from the issuer here), refresh tokens to the issuer.

const ISSUER = 'https://auth.example.test';
const AUDIENCE = 'orders-api';
const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** HS256 by hand, so any header or claim (or a missing one: `undefined`) can be written. */
function sign(header: object, claims: object, secret: string): string {
  const unsigned = `${b64(header)}.${b64(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

const accessToken = (claims: object = {}, header: object = {}) =>
  sign(
    { alg: 'HS256', typ: 'at+jwt', ...header },
    {
      sub: 'demo',
      role: 'user',
      sv: 0,
      typ: 'access',
      jti: 'j',
      iss: ISSUER,
      aud: AUDIENCE,
      iat: now(),
      exp: now() + 600,
      ...claims,
    },
    TEST_SECRETS.JWT_SECRET,
  );

const refreshToken = (claims: object = {}) =>
  sign(
    { alg: 'HS256', typ: 'JWT' },
    {
      sub: 'demo',
      typ: 'refresh',
      sv: 0,
      jti: randomBytes(16).toString('base64url'),
      iss: ISSUER,
      aud: ISSUER,
      iat: now(),
      exp: now() + 3600,
      ...claims,
    },
    TEST_SECRETS.REFRESH_TOKEN_SECRET,
  );

describe('token claims (RFC 8725)', () => {
  let app: TestApp;
  const http = () => request(app.app.callback());

  beforeAll(async () => {
    app = await buildAuthApp({ JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });
  });
  afterAll(() => app.close());

  it('issued tokens carry iss, aud, exp, iat; the access token says at+jwt in its header', async () => {
    const session = await login(app);
    const access = jwt.decode(session.accessToken, { complete: true });
    expect(access?.header).toMatchObject({ alg: 'HS256', typ: 'at+jwt' });
    expect(access?.payload).toMatchObject({
      iss: ISSUER,
      aud: AUDIENCE,
      typ: 'access',
      sub: 'demo',
      exp: expect.any(Number),
      iat: expect.any(Number),
    });
    expect(jwt.decode(session.refreshToken)).toMatchObject({
      iss: ISSUER,
      aud: ISSUER,
      typ: 'refresh',
      exp: expect.any(Number),
    });
  });

  describe('access tokens on an authenticated route', () => {
    const logout = (token: string) => http().post('/api/auth/logout').set('Authorization', `Bearer ${token}`);

    it('a hand-made token right in every claim is accepted (control), also with iat a few seconds ahead', async () => {
      await logout(accessToken()).expect(204);
      await logout(accessToken({ iat: now() + 10 })).expect(204);
    });

    it.each([
      ['no issuer', { iss: undefined }, {}],
      ['another issuer', { iss: 'https://evil.example' }, {}],
      ['no audience', { aud: undefined }, {}],
      ['another audience', { aud: 'billing-api' }, {}],
      ['the refresh audience (the issuer)', { aud: ISSUER }, {}],
      ['no exp', { exp: undefined }, {}],
      ['a string exp', { exp: String(now() + 600) }, {}],
      ['no iat', { iat: undefined }, {}],
      ['iat five minutes ahead', { iat: now() + 300 }, {}],
      ['header typ JWT', {}, { typ: 'JWT' }],
      ['no header typ', {}, { typ: undefined }],
    ])('%s: 401', async (_case, claims, header) => {
      const response = await logout(accessToken(claims, header)).expect(401);
      expect(response.body).toEqual({ status: 'fail', message: expect.any(String) });
    });
  });

  describe('refresh tokens in the cookie', () => {
    /** Stores the token's record, as a login would have, so only the claims can be why it is refused. */
    async function stored(token: string): Promise<string> {
      await app.services.database
        .store(refreshTokenStore)
        .create({ userId: 'demo', token: digestRefreshToken(token), expiresAt: new Date(Date.now() + 3600_000) });
      return token;
    }
    const refresh = (token: string) => http().post('/api/auth/refresh').set('Cookie', `refreshToken=${token}`);

    it('a stored hand-made token right in every claim refreshes (control)', async () => {
      await refresh(await stored(refreshToken())).expect(200);
    });

    it.each([
      ['no issuer', { iss: undefined }],
      ['another issuer', { iss: 'https://evil.example' }],
      ['the access audience', { aud: AUDIENCE }],
      ['no exp', { exp: undefined }],
      ['iat five minutes ahead', { iat: now() + 300 }],
    ])('%s: 401 and the cookie cleared', async (_case, claims) => {
      const response = await refresh(await stored(refreshToken(claims))).expect(401);
      expect(clearsRefreshCookie(response)).toBe(true);
    });
  });
});
