import request from 'supertest';
import { digestRefreshToken } from '../../src/auth/refresh-sessions';
import { buildAuthApp, login, setCookies } from '../support/auth-helpers';
import type { TestApp } from '../support/test-app';
import { refreshTokenStore } from '../../src/auth/stores/definitions';

describe('CSRF defence on the cookie routes (refresh, logout)', () => {
  let app: TestApp;
  let http: ReturnType<typeof request>;
  const listed = 'https://app.example.com';

  beforeAll(async () => {
    app = await buildAuthApp({ CORS_ORIGINS: listed });
    http = request(app.app.callback());
  });
  afterAll(() => app.close());

  const refresh = (cookie: string, headers: Record<string, string>) =>
    http.post('/api/auth/refresh').set('Cookie', `refreshToken=${cookie}`).set(headers);

  it.each([
    ['a cross-site Origin', { Origin: 'https://evil.example' }],
    ['Origin: null', { Origin: 'null' }],
    ['the same host on another scheme', { Origin: 'https://127.0.0.1' }],
    ['Sec-Fetch-Site: cross-site without Origin', { 'Sec-Fetch-Site': 'cross-site' }],
    [
      'Sec-Fetch-Site: same-site from an unlisted sibling',
      { 'Sec-Fetch-Site': 'same-site', Origin: 'https://sibling.example.com' },
    ],
  ])('refresh with %s → 403, no token, cookie untouched', async (_case, headers) => {
    const session = await login(app);
    const response = await refresh(session.refreshToken, headers).expect(403);
    expect(response.body).toEqual({ status: 'fail', message: 'Cross-site request refused' });
    expect(setCookies(response)).toEqual([]);
  });

  it('refresh from a listed origin, from the own origin, or with no browser headers → 200', async () => {
    const session = await login(app);
    await refresh(session.refreshToken, { Origin: listed, 'Sec-Fetch-Site': 'cross-site' }).expect(200);
    await refresh(session.refreshToken, { 'Sec-Fetch-Site': 'same-origin' }).expect(200);
    await refresh(session.refreshToken, {}).expect(200);
    // The own origin is whatever the request was addressed to (ctx.origin).
    const server = app.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      await request(server)
        .post('/api/auth/refresh')
        .set('Cookie', `refreshToken=${session.refreshToken}`)
        .set('Origin', `http://127.0.0.1:${port}`)
        .expect(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('cross-site logout → 403 and the record survives', async () => {
    const session = await login(app);
    await http
      .post('/api/auth/logout')
      .set('Authorization', `Bearer ${session.accessToken}`)
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .set('Origin', 'https://evil.example')
      .expect(403);
    expect(
      await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(session.refreshToken)),
    ).not.toBeNull();
  });

  it('login is not a cookie route: a listed or unlisted Origin can log in (CORS decides what a browser may read)', async () => {
    await http
      .post('/api/auth/login')
      .set('Origin', 'https://evil.example')
      .send({ email: 'demo@example.com', password: 'demo-password' })
      .expect(200);
  });

  it('behind a trusted TLS proxy (TRUST_PROXY=1) the own origin is the forwarded scheme and host', async () => {
    const proxied = await buildAuthApp({ TRUST_PROXY: '1' });
    try {
      const session = await login(proxied);
      const call = () =>
        request(proxied.app.callback())
          .post('/api/auth/refresh')
          .set('Cookie', `refreshToken=${session.refreshToken}`)
          .set('X-Forwarded-Proto', 'https')
          .set('X-Forwarded-Host', 'api.example.com');
      await call().set('Origin', 'https://api.example.com').expect(200);
      await call().set('Origin', 'http://api.example.com').expect(403);
    } finally {
      await proxied.close();
    }
  });
});
