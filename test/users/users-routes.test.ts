import request from 'supertest';
import type { Response } from 'supertest';
import { DocumentConformance } from '../support/openapi-conformance';
import { userStore } from '../../src/auth/stores/definitions';
import { modules } from '../../src/modules';
import { buildTestApp, type TestApp } from '../support/test-app';
import { login, refreshTokenFrom } from '../support/auth-helpers';

// The users module on real HTTP and the real store: /me for everyone signed in, and the admin routes.

const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '100000' };
const ADA = { name: 'Ada', email: 'ada@example.com', password: 'analytical engine 1' };
const BOB = { name: 'Bob', email: 'bob@example.com', password: 'difference engine 2' };

describe('users module', () => {
  let app: TestApp;
  const http = () => request(app.app.callback());
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  let ada: { accessToken: string; refreshToken: string };
  let admin: { accessToken: string };
  let bobId: string;

  beforeAll(async () => {
    app = await buildTestApp({ env: ENV, modules });
    await http().post('/api/auth/register').send(ADA).expect(201);
    bobId = (await http().post('/api/auth/register').send(BOB).expect(201)).body.data.id;
    const root = await http()
      .post('/api/auth/register')
      .send({ name: 'Root', email: 'root@example.com', password: 'administrator pass 3' })
      .expect(201);
    await app.services.database.store(userStore).updateRole(root.body.data.id, 'admin');
    ada = await login(app, ADA);
    admin = await login(app, { email: 'root@example.com', password: 'administrator pass 3' });
  });
  afterAll(() => app.close());

  it('GET /api/users/me: the caller from the store, never the hash; 401 without a token', async () => {
    const me = await http().get('/api/users/me').set(bearer(ada.accessToken)).expect(200);
    expect(me.body).toEqual({
      status: 'success',
      data: { id: expect.any(String), email: ADA.email, name: 'Ada', role: 'user', emailVerified: false },
    });
    await http().get('/api/users/me').expect(401);
    expect(me.headers['ratelimit-limit']).toBeUndefined(); // outside /api/auth: no auth rate limit spent
  });

  it('admin routes are 403 for a user and work for an admin', async () => {
    await http().get('/api/users').set(bearer(ada.accessToken)).expect(403);
    await http().get(`/api/users/${bobId}`).set(bearer(ada.accessToken)).expect(403);
    await http().patch(`/api/users/${bobId}`).set(bearer(ada.accessToken)).send({ role: 'admin' }).expect(403);
    await http().delete(`/api/users/${bobId}`).set(bearer(ada.accessToken)).expect(403);

    const list = await http().get('/api/users?limit=2&offset=0&count=true').set(bearer(admin.accessToken)).expect(200);
    expect(list.body.data).toMatchObject({
      total: 3,
      totalCapped: false,
      limit: 2,
      offset: 0,
      nextCursor: expect.any(String),
    });
    expect(list.body.data.items.map((user: { email: string }) => user.email)).toEqual([ADA.email, BOB.email]);
    const next = await http()
      .get(`/api/users?limit=2&cursor=${list.body.data.nextCursor}`)
      .set(bearer(admin.accessToken))
      .expect(200);
    expect(next.body.data).toMatchObject({ offset: 0, nextCursor: null });
    expect(next.body.data).not.toHaveProperty('total');
    expect(next.body.data.items).toHaveLength(1);
    await http()
      .get(`/api/users?offset=1&cursor=${list.body.data.nextCursor}`)
      .set(bearer(admin.accessToken))
      .expect(422);
    await http().get('/api/users?offset=100000').set(bearer(admin.accessToken)).expect(422);
    expect(JSON.stringify(list.body)).not.toMatch(/argon2|passwordHash/);
    const bob = await http().get(`/api/users/${bobId}`).set(bearer(admin.accessToken)).expect(200);
    expect(bob.body.data).toEqual({ id: bobId, email: BOB.email, name: 'Bob', role: 'user', emailVerified: false }); // self-registered: not proven
  });

  it('list paging is validated: 422 on query.limit / query.offset', async () => {
    for (const [query, field] of [
      ['limit=abc', 'query.limit'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['offset=-1', 'query.offset'],
    ]) {
      const response = await http().get(`/api/users?${query}`).set(bearer(admin.accessToken)).expect(422);
      expect(response.body.errors).toEqual([{ field, message: expect.any(String) }]);
    }
  });

  it('PATCH changes the role (one of ROLES), and the next refresh carries it', async () => {
    const bobSession = await login(app, BOB);
    await http().patch(`/api/users/${bobId}`).set(bearer(admin.accessToken)).send({ role: 'superuser' }).expect(422);
    await http().patch(`/api/users/${bobId}`).set(bearer(admin.accessToken)).send({}).expect(422);
    const changed = await http()
      .patch(`/api/users/${bobId}`)
      .set(bearer(admin.accessToken))
      .send({ role: 'admin' })
      .expect(200);
    expect(changed.body.data.role).toBe('admin');
    const refreshed = await http()
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${bobSession.refreshToken}`)
      .expect(200);
    await http().get('/api/users').set(bearer(refreshed.body.data.accessToken)).expect(200); // admin now
    await http().patch(`/api/users/${bobId}`).set(bearer(admin.accessToken)).send({ role: 'user' }).expect(200);
  });

  it('unknown and malformed ids are 404', async () => {
    for (const id of ['01900000-0000-7000-8000-000000000000', 'not-an-id', '1%27%20OR%201=1']) {
      await http().get(`/api/users/${id}`).set(bearer(admin.accessToken)).expect(404);
      await http().patch(`/api/users/${id}`).set(bearer(admin.accessToken)).send({ role: 'user' }).expect(404);
      await http().delete(`/api/users/${id}`).set(bearer(admin.accessToken)).expect(404);
    }
  });

  it('DELETE removes the user and revokes their refresh tokens: 204, then 404', async () => {
    const victim = { name: 'Eve', email: 'eve@example.com', password: 'short lived user 4' };
    const id = (await http().post('/api/auth/register').send(victim).expect(201)).body.data.id;
    const session = await login(app, victim);
    await http().delete(`/api/users/${id}`).set(bearer(admin.accessToken)).expect(204);
    await http().delete(`/api/users/${id}`).set(bearer(admin.accessToken)).expect(404);
    await http().post('/api/auth/refresh').set('Cookie', `refreshToken=${session.refreshToken}`).expect(401);
    await http().post('/api/auth/login').send(victim).expect(401);
    expect(refreshTokenFrom(await http().post('/api/auth/login').send(ADA).expect(200))).toBeDefined();
  });
});

describe('users and account routes conform to the served document', () => {
  it('every answer, success and error, is listed for its operation and matches its schema', async () => {
    const app = await buildTestApp({ env: ENV, modules });
    try {
      const http = () => request(app.app.callback());
      const conformance = new DocumentConformance((await http().get('/openapi.json').expect(200)).body);
      const id = (await http().post('/api/auth/register').send(ADA).expect(201)).body.data.id;
      let user = await login(app, ADA);
      const root = (
        await http()
          .post('/api/auth/register')
          .send({ ...BOB, email: 'root@example.com' })
          .expect(201)
      ).body.data.id;
      await app.services.database.store(userStore).updateRole(root, 'admin');
      const admin = await login(app, { email: 'root@example.com', password: BOB.password });
      const as = (session: { accessToken: string }) => ({ Authorization: `Bearer ${session.accessToken}` });
      const answers: [string, string, Response][] = [
        ['GET', '/api/users/me', await http().get('/api/users/me').set(as(user)).expect(200)],
        ['GET', '/api/users/me', await http().get('/api/users/me').expect(401)],
        ['GET', '/api/users', await http().get('/api/users').set(as(admin)).expect(200)],
        ['GET', '/api/users', await http().get('/api/users').set(as(user)).expect(403)],
        ['GET', '/api/users', await http().get('/api/users?limit=abc').set(as(admin)).expect(422)],
        ['GET', '/api/users/{id}', await http().get(`/api/users/${id}`).set(as(admin)).expect(200)],
        ['GET', '/api/users/{id}', await http().get('/api/users/nope').set(as(admin)).expect(404)],
        [
          'PATCH',
          '/api/users/{id}',
          await http().patch(`/api/users/${id}`).set(as(admin)).send({ role: 'user' }).expect(200),
        ],
        [
          'PATCH',
          '/api/users/{id}',
          await http().patch(`/api/users/${id}`).set(as(admin)).send({ role: 'x' }).expect(422),
        ],
        [
          'PATCH',
          '/api/users/{id}',
          await http().patch(`/api/users/${root}`).set(as(admin)).send({ role: 'user' }).expect(409),
        ],
        ['GET', '/api/users/me', await http().get('/api/users/me').set(as(user)).expect(200)], // the role did not change: still valid
        [
          'POST',
          '/api/auth/password',
          await http()
            .post('/api/auth/password')
            .set(as(user))
            .send({ currentPassword: 'wrong', newPassword: 'new passphrase 12' })
            .expect(401),
        ],
        [
          'POST',
          '/api/auth/password',
          await http().post('/api/auth/password').set(as(user)).send({ currentPassword: ADA.password }).expect(422),
        ],
        [
          'POST',
          '/api/auth/password',
          await http()
            .post('/api/auth/password')
            .set(as(user))
            .send({ currentPassword: ADA.password, newPassword: 'new passphrase 12' })
            .expect(204),
        ],
        ['GET', '/api/users/me', await http().get('/api/users/me').set(as(user)).expect(401)], // the change ended this session
        [
          'POST',
          '/api/auth/logout-all',
          await http()
            .post('/api/auth/logout-all')
            .set(as((user = await login(app, { ...ADA, password: 'new passphrase 12' }))))
            .expect(204),
        ],
        ['DELETE', '/api/users/{id}', await http().delete(`/api/users/${id}`).set(as(admin)).expect(204)],
      ];
      for (const [method, template, response] of answers) conformance.expectConforms(method, template, response);
    } finally {
      await app.close();
    }
  });
});

describe('users module with the demo store', () => {
  it('/me answers for the demo user; the admin routes do not exist', async () => {
    const app = await buildTestApp({ env: { DEMO_USER_ROLE: 'admin' }, modules });
    try {
      const session = await login(app);
      const me = await request(app.app.callback())
        .get('/api/users/me')
        .set('Authorization', `Bearer ${session.accessToken}`)
        .expect(200);
      expect(me.body.data).toEqual({
        id: 'demo',
        email: 'demo@example.com',
        name: 'Demo User',
        role: 'admin',
        emailVerified: true,
      });
      await request(app.app.callback())
        .get('/api/users')
        .set('Authorization', `Bearer ${session.accessToken}`)
        .expect(404);
    } finally {
      await app.close();
    }
  });
});
