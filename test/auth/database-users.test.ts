import argon2 from 'argon2';
import { PasswordHasher } from '../../src/auth/passwords';
import request from 'supertest';
import { digestRefreshToken } from '../../src/auth/refresh-sessions';
import { buildAuthApp, clearsRefreshCookie, login, setCookies } from '../support/auth-helpers';
import type { TestApp } from '../support/test-app';
import { refreshTokenStore, userStore } from '../../src/auth/stores/definitions';

describe('USER_STORE=database with AUTH_REGISTRATION=true', () => {
  let app: TestApp;
  let http: ReturnType<typeof request>;
  const ada = { name: 'Ada Lovelace', email: 'Ada@Example.com', password: 'analytical-engine' };
  const bob = { name: 'Bob', email: 'bob@example.com', password: 'bob-password-1' };

  beforeAll(async () => {
    app = await buildAuthApp({ USER_STORE: 'database', AUTH_REGISTRATION: 'true' });
    http = request(app.app.callback());
  });
  afterAll(() => app.close());

  it('registers: 201 with the user, never the hash; the stored password is an argon2id hash', async () => {
    const response = await http.post('/api/auth/register').send(ada).expect(201);
    expect(response.body).toEqual({
      status: 'success',
      data: { id: expect.any(String), email: 'ada@example.com', role: 'user', name: 'Ada Lovelace' },
    });
    expect(JSON.stringify(response.body)).not.toMatch(/argon2|analytical/);
    const stored = await app.services.database.store(userStore).findByEmail('ada@example.com');
    expect(stored!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    await http.post('/api/auth/register').send(bob).expect(201);
  });

  it('a taken email (in any case) → 409', async () => {
    const response = await http
      .post('/api/auth/register')
      .send({ ...ada, email: 'ADA@example.COM' })
      .expect(409);
    expect(response.body).toEqual({ status: 'fail', message: 'This email is already registered' });
  });

  it.each([
    ['missing name', { email: 'c@example.com', password: 'long-enough' }, 'name'],
    ['blank name', { name: '   ', email: 'c@example.com', password: 'long-enough' }, 'name'],
    ['bad email', { name: 'C', email: 'c-at-example.com', password: 'long-enough' }, 'email'],
    ['short password', { name: 'C', email: 'c@example.com', password: 'short' }, 'password'],
    ['operator object', { name: 'C', email: { $gt: '' }, password: 'long-enough' }, 'email'],
  ])('bad input (%s) → 422', async (_case, body, field) => {
    const response = await http.post('/api/auth/register').send(body).expect(422);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('the registered user logs in (email case-insensitive); wrong password and the demo user are refused', async () => {
    await login(app, { email: 'ADA@example.com', password: ada.password });
    await http.post('/api/auth/login').send({ email: ada.email, password: 'wrong-password' }).expect(401);
    await http.post('/api/auth/login').send({ email: 'demo@example.com', password: 'demo-password' }).expect(401);
  });

  it("logout with another user's cookie leaves that token alive; refresh after one's own logout is 401", async () => {
    const adaSession = await login(app, ada);
    const bobSession = await login(app, bob);

    const response = await http
      .post('/api/auth/logout')
      .set('Authorization', `Bearer ${adaSession.accessToken}`)
      .set('Cookie', `refreshToken=${bobSession.refreshToken}`)
      .expect(204);
    expect(clearsRefreshCookie(response)).toBe(true);
    expect(
      await app.services.database.store(refreshTokenStore).findByToken(digestRefreshToken(bobSession.refreshToken)),
    ).not.toBeNull();
    await http.post('/api/auth/refresh').set('Cookie', `refreshToken=${bobSession.refreshToken}`).expect(200);

    await http
      .post('/api/auth/logout')
      .set('Authorization', `Bearer ${bobSession.accessToken}`)
      .set('Cookie', `refreshToken=${bobSession.refreshToken}`)
      .expect(204);
    const refused = await http
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${bobSession.refreshToken}`)
      .expect(401);
    expect(clearsRefreshCookie(refused)).toBe(true);
    await http.post('/api/auth/refresh').set('Cookie', `refreshToken=${adaSession.refreshToken}`).expect(200);
  });

  it("refresh carries the user's current role", async () => {
    const user = await app.services.database.store(userStore).create({
      email: 'ops@example.com',
      passwordHash: await argon2.hash('ops-password', {
        type: argon2.argon2id,
        memoryCost: 19_456,
        timeCost: 2,
        parallelism: 1,
      }),
      role: 'admin',
      name: 'Ops',
    });
    const session = await login(app, { email: 'ops@example.com', password: 'ops-password' });
    const refreshed = await http
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(200);
    const claims = JSON.parse(Buffer.from(refreshed.body.data.accessToken.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: user.id, role: 'admin', typ: 'access' });
  });

  it('rehashes on login when the stored hash has older parameters', async () => {
    const weak = await argon2.hash('legacy-password', {
      type: argon2.argon2id,
      memoryCost: 8_192,
      timeCost: 1,
      parallelism: 1,
    });
    const user = await app.services.database
      .store(userStore)
      .create({ email: 'legacy@example.com', passwordHash: weak, role: 'user', name: null });
    await login(app, { email: 'legacy@example.com', password: 'legacy-password' });
    const upgraded = (await app.services.database.store(userStore).findById(user.id))!.passwordHash;
    expect(upgraded).not.toBe(weak);
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await argon2.verify(upgraded, 'legacy-password')).toBe(true);
    await login(app, { email: 'legacy@example.com', password: 'legacy-password' }); // still logs in with the new hash
  });

  it("tells a hash of today's parameters apart from others without parsing, as argon2 would", async () => {
    const hasher = new PasswordHasher();
    const today = await hasher.hash('any password');
    const parse = jest.spyOn(argon2, 'needsRehash');
    expect(hasher.needsRehash(today)).toBe(false);
    expect(parse).not.toHaveBeenCalled(); // told by the prefix argon2 itself wrote
    parse.mockRestore();
    expect(argon2.needsRehash(today, hasher.parameters)).toBe(false);
    const older = { ...hasher.parameters, timeCost: 1 };
    const other = await new PasswordHasher(older).hash('any password');
    expect(hasher.needsRehash(other)).toBe(true);
    expect(new PasswordHasher(older).needsRehash(other)).toBe(false);
    expect(hasher.needsRehash(today.replace('$argon2id$', '$argon2i$'))).toBe(true);
  });

  it('a corrupt stored hash reads as a wrong password (401), not a 500', async () => {
    await app.services.database
      .store(userStore)
      .create({ email: 'corrupt@example.com', passwordHash: 'not-a-hash', role: 'user', name: null });
    const response = await http
      .post('/api/auth/login')
      .send({ email: 'corrupt@example.com', password: 'anything' })
      .expect(401);
    expect(setCookies(response)).toEqual([]);
  });
});
