import jwt from 'jsonwebtoken';
import request from 'supertest';
import { digestRefreshToken } from '../../src/auth/refresh-sessions';
import { loadConfig } from '../../src/config/config';
import { startService } from '../../src/service';
import { buildAuthApp, clearsRefreshCookie, DEMO, login, refreshTokenFrom, setCookies } from '../support/auth-helpers';
import { memoryLogger, TEST_SECRETS, type TestApp } from '../support/test-app';
import { refreshTokenStore } from '../../src/auth/stores/definitions';

describe('login → refresh → logout (demo user store, real SQLite refresh-token store)', () => {
  let app: TestApp;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    app = await buildAuthApp();
    http = request(app.app.callback());
  });
  afterAll(() => app.close());

  it('logs in: 200 envelope with the access token, refresh token only in the cookie, no-store', async () => {
    const response = await http.post('/api/auth/login').send(DEMO).expect(200);
    expect(response.body).toEqual({
      status: 'success',
      data: { accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 },
    });
    expect(response.headers['cache-control']).toBe('no-store');
    const refreshToken = refreshTokenFrom(response)!;
    expect(setCookies(response)).toEqual([
      `refreshToken=${refreshToken}; Path=/api/auth; Max-Age=604800; HttpOnly; SameSite=Strict`,
      expect.stringMatching(
        /^loginDevice=[0-9a-f]{32}\.\d+\.[\w-]{22}\.[\w-]{43}; Path=\/api\/auth; Max-Age=15552000; HttpOnly; SameSite=Strict$/,
      ),
    ]);
    expect(JSON.stringify(response.body)).not.toContain(refreshToken);

    const access = jwt.verify(response.body.data.accessToken, TEST_SECRETS.JWT_SECRET, {
      algorithms: ['HS256'],
    }) as jwt.JwtPayload;
    expect(access).toMatchObject({ sub: 'demo', role: 'user', typ: 'access' });
    expect(access.exp! - access.iat!).toBe(900);
    const refresh = jwt.verify(refreshToken, TEST_SECRETS.REFRESH_TOKEN_SECRET, {
      algorithms: ['HS256'],
    }) as jwt.JwtPayload;
    expect(refresh).toMatchObject({ sub: 'demo', typ: 'refresh' });
    expect(Buffer.from(refresh.jti!, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(refresh.exp! - refresh.iat!).toBe(7 * 24 * 3600);

    // Stored by digest, with its owner and a 7-day expiry.
    const record = await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(refreshToken));
    expect(record).toMatchObject({ userId: 'demo', token: digestRefreshToken(refreshToken) });
    expect(Math.abs(record!.expiresAt.getTime() - (Date.now() + 7 * 24 * 3600 * 1000))).toBeLessThan(60_000);
    expect(await app.services.database.store(refreshTokenStore).findByToken(refreshToken)).toBeNull();
  });

  it('accepts the email in any case', async () => {
    await http.post('/api/auth/login').send({ email: 'Demo@Example.COM', password: DEMO.password }).expect(200);
  });

  it('refreshes with the cookie, leaving the record unchanged; logs out; refresh then fails', async () => {
    const session = await login(app);
    const before = await app.services.database
      .store(refreshTokenStore)
      .findByToken(digestRefreshToken(session.refreshToken));

    const refreshed = await http
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(200);
    expect(refreshed.body).toEqual({
      status: 'success',
      data: { accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 },
    });
    expect(refreshed.headers['cache-control']).toBe('no-store');
    expect(refreshed.body.data.accessToken).not.toBe(session.accessToken);
    expect(setCookies(refreshed)).toEqual([]);
    expect(
      await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(session.refreshToken)),
    ).toEqual(before);

    // The new access token works on an authenticated route.
    const loggedOut = await http
      .post('/api/auth/logout')
      .set('Authorization', `Bearer ${refreshed.body.data.accessToken}`)
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(204);
    expect(loggedOut.text).toBe('');
    expect(setCookies(loggedOut)).toEqual([
      'refreshToken=; Path=/api/auth; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict',
    ]);
    expect(
      await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(session.refreshToken)),
    ).toBeNull();

    const after = await http
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(401);
    expect(after.body).toEqual({ status: 'fail', message: expect.any(String) });
    expect(clearsRefreshCookie(after)).toBe(true);

    // A second logout (same access token, cookie already gone) is 204 too.
    await http
      .post('/api/auth/logout')
      .set('Authorization', `Bearer ${session.accessToken}`)
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(204);
    await http.post('/api/auth/logout').set('Authorization', `Bearer ${session.accessToken}`).expect(204);
  });

  it('two logins give two different refresh tokens, both stored', async () => {
    const [first, second] = [await login(app), await login(app)];
    expect(first.refreshToken).not.toBe(second.refreshToken);
    for (const session of [first, second]) {
      expect(
        await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(session.refreshToken)),
      ).not.toBeNull();
    }
  });

  it('ten parallel refreshes with one cookie all succeed (no 500)', async () => {
    const session = await login(app);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        http.post('/api/auth/refresh').set('Cookie', `refreshToken=${session.refreshToken}`),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
  });

  it('logout needs a bearer token (401) even with a valid cookie, and keeps the record', async () => {
    const session = await login(app);
    const response = await http
      .post('/api/auth/logout')
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(401);
    expect(response.body.status).toBe('fail');
    expect(
      await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(session.refreshToken)),
    ).not.toBeNull();
  });
});

describe('COOKIE_SECURE=true over plain HTTP (production smoke test, TLS proxy without TRUST_PROXY)', () => {
  it('still logs in and marks the cookie Secure; refresh clears it with Secure too', async () => {
    const app = await buildAuthApp({ COOKIE_SECURE: 'true' });
    try {
      const http = request(app.app.callback());
      const response = await http.post('/api/auth/login').send(DEMO).expect(200);
      expect(setCookies(response)[0]).toMatch(
        /^refreshToken=[^;]+; Path=\/api\/auth; Max-Age=604800; HttpOnly; SameSite=Strict; Secure$/,
      );
      const refused = await http.post('/api/auth/refresh').set('Cookie', 'refreshToken=garbage').expect(401);
      expect(setCookies(refused)[0]).toMatch(/Max-Age=0;.*; Secure$/);
    } finally {
      await app.close();
    }
  });
});

describe('through startService with the registered modules (real socket)', () => {
  it('serves the auth module from the module registry and closes cleanly', async () => {
    const config = loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS, AUTH_RATE_LIMIT_MAX: '1000' });
    const service = await startService(config, memoryLogger().logger, { port: 0, host: '127.0.0.1' });
    try {
      const http = request(`http://127.0.0.1:${service.port}`);
      const response = await http.post('/api/auth/login').send(DEMO).expect(200);
      const refreshToken = refreshTokenFrom(response)!;
      await http.post('/api/auth/refresh').set('Cookie', `refreshToken=${refreshToken}`).expect(200);
      await http
        .post('/api/auth/logout')
        .set('Authorization', `Bearer ${response.body.data.accessToken}`)
        .set('Cookie', `refreshToken=${refreshToken}`)
        .expect(204);
      await http.post('/api/auth/refresh').set('Cookie', `refreshToken=${refreshToken}`).expect(401);
    } finally {
      await service.stop();
    }
  });
});
