import request from 'supertest';
import { modules } from '../../src/modules';
import { buildTestApp, type TestApp } from '../support/test-app';
import { login, refreshTokenFrom } from '../support/auth-helpers';

// Password change and refresh without rotation, on real HTTP and the real store.

const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '100000' };
const ADA = { name: 'Ada', email: 'ada@example.com', password: 'analytical engine 1' };

describe('POST /api/auth/password', () => {
  let app: TestApp;
  const http = () => request(app.app.callback());
  const change = (token: string, body: object) =>
    http().post('/api/auth/password').set('Authorization', `Bearer ${token}`).send(body);

  beforeEach(async () => {
    app = await buildTestApp({ env: ENV, modules });
    await http().post('/api/auth/register').send(ADA).expect(201);
  });
  afterEach(() => app.close());

  it('changes the password, ends every other session and sets a new cookie for the caller', async () => {
    const phone = await login(app, ADA);
    const laptop = await login(app, ADA);
    const response = await change(laptop.accessToken, {
      currentPassword: ADA.password,
      newPassword: 'a brand new passphrase',
    }).expect(204);
    const fresh = refreshTokenFrom(response);
    expect(fresh).toBeDefined();
    for (const old of [phone, laptop])
      await http().post('/api/auth/refresh').set('Cookie', `refreshToken=${old.refreshToken}`).expect(401);
    await http().post('/api/auth/refresh').set('Cookie', `refreshToken=${fresh}`).expect(200);
    await http().post('/api/auth/login').send(ADA).expect(401);
    await login(app, { email: ADA.email, password: 'a brand new passphrase' });
  });

  it('a wrong current password is 401 and counted by the login throttle', async () => {
    const session = await login(app, ADA);
    const statuses = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push(
        (await change(session.accessToken, { currentPassword: `wrong-${i}`, newPassword: 'another passphrase 1' }))
          .status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    await http().post('/api/auth/login').send(ADA).expect(429); // the same counters as login
  });

  it.each([
    ['too short', { newPassword: 'short-11-ch' }, 'newPassword'],
    ['common', { newPassword: '123456789012' }, 'newPassword'],
    ['the email', { newPassword: ADA.email }, 'newPassword'],
    ['unchanged', { newPassword: ADA.password }, 'newPassword'],
  ])('refuses a new password that is %s: 422, nothing changed', async (_case, body, field) => {
    const session = await login(app, ADA);
    const response = await change(session.accessToken, { currentPassword: ADA.password, ...body }).expect(422);
    expect(response.body.errors).toEqual([{ field, message: expect.any(String) }]);
    await http().post('/api/auth/refresh').set('Cookie', `refreshToken=${session.refreshToken}`).expect(200);
  });

  it('needs a signed-in caller', async () => {
    await http().post('/api/auth/password').send({ currentPassword: 'x', newPassword: 'y' }).expect(401);
  });
});

describe('refresh without REFRESH_ROTATION (the specification’s behaviour)', () => {
  it('the same cookie refreshes again and again, and no new cookie is set', async () => {
    const app = await buildTestApp({ env: ENV, modules });
    try {
      await request(app.app.callback()).post('/api/auth/register').send(ADA).expect(201);
      const session = await login(app, ADA);
      for (let i = 0; i < 3; i += 1) {
        const response = await request(app.app.callback())
          .post('/api/auth/refresh')
          .set('Cookie', `refreshToken=${session.refreshToken}`)
          .expect(200);
        expect(refreshTokenFrom(response)).toBeUndefined();
      }
    } finally {
      await app.close();
    }
  });
});
