import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { buildAuthApp, DEMO, login } from '../support/auth-helpers';
import { pathVariants, sendRaw } from '../support/path-variants';
import type { TestApp } from '../support/test-app';
import { userStore } from '../../src/auth/stores/definitions';

// Regression tests for the audit's findings on the auth module (issue 11), each on real HTTP.

describe('the auth rate limit cannot be sidestepped by spelling the path differently', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '3' });
  });
  afterAll(() => app.close());

  it('once the canonical path is limited, every spelling of login is 429 or not routed at all', async () => {
    const server = app.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (let i = 0; i < 3; i += 1) expect(await sendRaw(port, 'POST', '/api/auth/login')).toBe(422);
      expect(await sendRaw(port, 'POST', '/api/auth/login')).toBe(429);
      for (const variant of pathVariants('/api/auth/login')) {
        const status = await sendRaw(port, 'POST', variant);
        expect([variant, [404, 429].includes(status)]).toEqual([variant, true]);
      }
      // Case: the router is case-sensitive now, so an upper-case path is simply not a route.
      expect(await sendRaw(port, 'POST', '/API/AUTH/LOGIN')).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('auth responses are never cached', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '12' });
  });
  afterAll(() => app.close());

  it('Cache-Control: no-store on every answer under /api/auth, errors and 429 included', async () => {
    const http = request(app.app.callback());
    const session = await login(app);
    const answers = [
      await http.post('/api/auth/login').send({ email: DEMO.email, password: 'wrong' }).expect(401),
      await http.post('/api/auth/login').send({}).expect(422),
      await http.post('/api/auth/login').set('Content-Type', 'text/plain').send('x').expect(415),
      await http.post('/api/auth/refresh').expect(401),
      await http.post('/api/auth/refresh').set('Cookie', `refreshToken=${session.refreshToken}`).expect(200),
      await http.post('/api/auth/logout').expect(401),
      await http.post('/api/auth/logout').set('Authorization', `Bearer ${session.accessToken}`).expect(204),
      await http.get('/api/auth/login').expect(405),
      await http.get('/api/auth/nothing-here').expect(404),
    ];
    while ((await http.get('/api/auth/nothing-here')).status !== 429); // bounded by the limit of 12
    answers.push(await http.post('/api/auth/login').send(DEMO).expect(429));
    for (const answer of answers)
      expect([answer.status, answer.headers['cache-control']]).toEqual([answer.status, 'no-store']);
    expect((await http.get('/').expect(200)).headers['cache-control']).toBeUndefined(); // not a global rule
  });
});

describe('client addresses', () => {
  it('an IPv4-mapped IPv6 address shares the IPv4 address’s counter and is logged as IPv4', async () => {
    const app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '2', TRUST_PROXY: '1' });
    try {
      const http = request(app.app.callback());
      await http.get('/api/auth/x').set('X-Forwarded-For', '203.0.113.7').expect(404);
      await http.get('/api/auth/x').set('X-Forwarded-For', '::ffff:203.0.113.7').expect(404);
      await http.get('/api/auth/x').set('X-Forwarded-For', '::FFFF:203.0.113.7').expect(429);
      await http.get('/api/auth/x').set('X-Forwarded-For', '203.0.113.8').expect(404); // another client
      const ips = app
        .logLines()
        .filter((line) => line.msg === 'request')
        .map((line) => line.ip);
      expect(ips).toEqual(['203.0.113.7', '203.0.113.7', '203.0.113.7', '203.0.113.8']);
    } finally {
      await app.close();
    }
  });
});

describe('auth events are logged, without secrets', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildAuthApp({ AUTH_RATE_LIMIT_MAX: '7' });
  });
  afterAll(() => app.close());

  it('login success and failure, refresh refused, logout and rate-limited each write one line', async () => {
    const http = request(app.app.callback());
    const session = await login(app);
    await http.post('/api/auth/login').send({ email: DEMO.email, password: 'wrong-password-1' }).expect(401);
    await http.post('/api/auth/login').send({ email: 'Nobody@Example.com', password: 'guess-password-1' }).expect(401);
    await http.post('/api/auth/login').send({ email: 'nobody@example.com', password: 'guess-password-2' }).expect(401);
    await http.post('/api/auth/refresh').expect(401);
    await http.post('/api/auth/refresh').set('Cookie', 'refreshToken=not-a-token').expect(401);
    await http
      .post('/api/auth/logout')
      .set('Authorization', `Bearer ${session.accessToken}`)
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(204);
    await http.get('/api/auth/x').expect(429);

    const lines = app.logLines();
    const events = lines.filter((line) => line.event === 'auth');
    const pick = ({ action, outcome, userId, emailHash, reason, revoked }: Record<string, unknown>) => ({
      action,
      outcome,
      userId,
      emailHash,
      reason,
      revoked,
    });
    const hash = expect.stringMatching(/^[0-9a-f]{32}$/);
    expect(events.map(pick)).toEqual(
      [
        { action: 'login', outcome: 'success', userId: 'demo' },
        { action: 'login', outcome: 'failure', userId: 'demo' },
        { action: 'login', outcome: 'failure', emailHash: hash },
        { action: 'login', outcome: 'failure', emailHash: hash },
        { action: 'refresh', outcome: 'refused', reason: 'missing-cookie' },
        { action: 'refresh', outcome: 'refused', reason: 'invalid-token' },
        { action: 'logout', outcome: 'success', userId: 'demo', revoked: true },
        { action: 'rate-limit', outcome: 'limited' },
      ].map((event) => ({ userId: undefined, emailHash: undefined, reason: undefined, revoked: undefined, ...event })),
    );
    expect(events[2].emailHash).toBe(events[3].emailHash); // one address, however it is spelled
    for (const event of events) expect(event).toMatchObject({ reqId: expect.any(String), ip: '127.0.0.1' });

    const everything = JSON.stringify(lines);
    for (const secret of [
      DEMO.password,
      'wrong-password-1',
      'guess-password-1',
      'nobody@example.com',
      session.accessToken,
      session.refreshToken,
    ]) {
      expect(everything.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });
});

describe('the CSRF origin check behind a proxy', () => {
  const crossSite = (app: TestApp) =>
    request(app.app.callback())
      .post('/api/auth/refresh')
      .set('X-Forwarded-Host', 'evil.example')
      .set('X-Forwarded-Proto', 'https')
      .set('Origin', 'https://evil.example');

  it('without PUBLIC_URL the own origin comes from X-Forwarded-Host (why PUBLIC_URL exists)', async () => {
    const app = await buildAuthApp({ TRUST_PROXY: '1' });
    try {
      await crossSite(app).expect(401); // passed the origin check, refused for the missing cookie
    } finally {
      await app.close();
    }
  });

  it('with PUBLIC_URL the own origin is configuration: a forwarded host cannot make a page same-origin', async () => {
    const app = await buildAuthApp({ TRUST_PROXY: '1', PUBLIC_URL: 'https://api.example.com' });
    try {
      await crossSite(app).expect(403);
      await request(app.app.callback()).post('/api/auth/refresh').set('Origin', 'https://api.example.com').expect(401);
    } finally {
      await app.close();
    }
  });
});

describe('registration applies the password policy', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildAuthApp({ USER_STORE: 'database', AUTH_REGISTRATION: 'true' });
  });
  afterAll(() => app.close());

  it.each([
    ['shorter than PASSWORD_MIN_LENGTH (12)', 'short-pw-11'],
    ['a common password', '123456789012'],
    ['a common password in other case', 'PASSWORD1234'],
    ['the email address', 'policy-user@example.com'],
    ['the email’s local part', 'Policy-User@example.com'.split('@')[0]],
  ])('%s: 422 on password, nothing stored', async (_case, password) => {
    const email = 'policy-user@example.com';
    const response = await request(app.app.callback())
      .post('/api/auth/register')
      .send({ name: 'P', email, password: password.padEnd(password.length) })
      .expect(422);
    expect(response.body.errors).toEqual([{ field: 'password', message: expect.any(String) }]);
    expect(await app.services.database.store(userStore).findByEmail(email)).toBeNull();
  });

  it('a good password registers (control)', async () => {
    await request(app.app.callback())
      .post('/api/auth/register')
      .send({ name: 'P', email: 'policy-user@example.com', password: 'correct horse battery staple' })
      .expect(201);
  });
});

describe('the demo user in production', () => {
  it('the entry point refuses to start with the documented demo password and says what to set', async () => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        JWT_SECRET: randomBytes(48).toString('base64'),
        REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/DEMO_USER_PASSWORD must be set to a non-default value .*USER_STORE=database/);
  }, 30_000);
});
