import request from 'supertest';
import { userStore } from '../../src/auth/stores/definitions';
import { modules } from '../../src/modules';
import { DEMO, login } from '../support/auth-helpers';
import { probeModule } from '../support/probe-module';
import { buildTestApp, type TestApp } from '../support/test-app';

// Authorisation reads the caller's current state (docs/decisions/009): the access token a user already
// holds stops working when the user is deleted, demoted, or ends their sessions. Each case failed on the
// code that trusted the token's role for its whole lifetime.

const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '100000' };
const password = 'orbital mechanics 42';

describe('authorisation against the current state (database users)', () => {
  let t: TestApp;
  const http = () => request(t.app.callback());
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  let n = 0;

  /** A registered user with this role, logged in over HTTP: their id and access token. */
  async function user(role = 'user'): Promise<{ id: string; email: string; token: string }> {
    n += 1;
    const email = `person-${n}@example.com`;
    const { id } = (
      await http()
        .post('/api/auth/register')
        .send({ name: `P${n}`, email, password })
        .expect(201)
    ).body.data;
    if (role !== 'user') await t.services.database.store(userStore).updateRole(id, role);
    return { id, email, token: (await login(t, { email, password })).accessToken };
  }

  beforeAll(async () => {
    t = await buildTestApp({ env: ENV, modules: [...modules, probeModule()] });
  });
  afterAll(() => t.close());

  it('a demoted admin cannot promote itself back with the token it already holds', async () => {
    const [first, second] = [await user('admin'), await user('admin')];
    await http().patch(`/api/users/${first.id}`).set(bearer(second.token)).send({ role: 'user' }).expect(200);
    const res = await http()
      .patch(`/api/users/${first.id}`)
      .set(bearer(first.token))
      .send({ role: 'admin' })
      .expect(401);
    expect(res.body).toEqual({ status: 'fail', message: 'Your role has changed: refresh the access token' });
    // Logged in again, it is what it is now: a user.
    const again = (await login(t, { email: first.email, password })).accessToken;
    await http().patch(`/api/users/${first.id}`).set(bearer(again)).send({ role: 'admin' }).expect(403);
    expect((await t.services.database.store(userStore).findById(first.id))?.role).toBe('user');
  });

  it('a deleted admin cannot promote anyone, and a deleted user cannot write', async () => {
    const [gone, acting, accomplice] = [await user('admin'), await user('admin'), await user()];
    const plain = await user();
    await http().delete(`/api/users/${gone.id}`).set(bearer(acting.token)).expect(204);
    await http().delete(`/api/users/${plain.id}`).set(bearer(acting.token)).expect(204);
    const res = await http()
      .patch(`/api/users/${accomplice.id}`)
      .set(bearer(gone.token))
      .send({ role: 'admin' })
      .expect(401);
    expect(res.body.message).toBe('This user no longer exists');
    await http().delete('/api/probe/things/1').set(bearer(plain.token)).expect(401);
    await http().get('/api/users/me').set(bearer(plain.token)).expect(401);
  });

  it('the role a route checks is the stored role, not the one in the token', async () => {
    const promoted = await user();
    await http().get('/api/users').set(bearer(promoted.token)).expect(403);
    await t.services.database.store(userStore).updateRole(promoted.id, 'admin'); // e.g. `npm run user:set-role`
    t.services.callers.forget(promoted.id);
    // The token says `user` and is void (the role changed), a fresh login says admin and passes.
    await http().get('/api/users').set(bearer(promoted.token)).expect(401);
    await http()
      .get('/api/users')
      .set(bearer((await login(t, { email: promoted.email, password })).accessToken))
      .expect(200);
  });

  it.each([
    ['logout-all', (token: string) => http().post('/api/auth/logout-all').set(bearer(token)).expect(204)],
    [
      'a password change',
      (token: string) =>
        http()
          .post('/api/auth/password')
          .set(bearer(token))
          .send({ currentPassword: password, newPassword: 'a different passphrase 7' })
          .expect(204),
    ],
  ])('access tokens issued before %s are refused, from every device', async (_name, end) => {
    const someone = await user();
    const otherDevice = (await login(t, { email: someone.email, password })).accessToken;
    await http().get('/api/users/me').set(bearer(otherDevice)).expect(200);
    await end(someone.token);
    await http().get('/api/users/me').set(bearer(someone.token)).expect(401);
    await http().get('/api/users/me').set(bearer(otherDevice)).expect(401);
  });

  it('the last administrator can be neither demoted nor deleted (409 saying why)', async () => {
    const store = t.services.database.store(userStore);
    const admins = (await store.list({ limit: 100, offset: 0 })).items.filter((u) => u.role === 'admin');
    const last = await user('admin');
    for (const other of admins) await store.updateRole(other.id, 'user'); // leave exactly one
    const demote = await http()
      .patch(`/api/users/${last.id}`)
      .set(bearer(last.token))
      .send({ role: 'user' })
      .expect(409);
    expect(demote.body).toEqual({
      status: 'fail',
      message: 'This is the last administrator: make another user admin first',
    });
    const remove = await http().delete(`/api/users/${last.id}`).set(bearer(last.token)).expect(409);
    expect(remove.body.message).toMatch(/last administrator/);
    expect((await store.findById(last.id))?.role).toBe('admin');
    // A second admin makes the change possible.
    const next = await user();
    await http().patch(`/api/users/${next.id}`).set(bearer(last.token)).send({ role: 'admin' }).expect(200);
    await http().patch(`/api/users/${last.id}`).set(bearer(last.token)).send({ role: 'user' }).expect(200);
  });
});

describe('authorisation against the current state (the demo user)', () => {
  it('logout-all voids the access tokens already out; a new login works', async () => {
    const t = await buildTestApp({ env: { AUTH_RATE_LIMIT_MAX: '100000' }, modules });
    try {
      const http = () => request(t.app.callback());
      const [first, second] = [await login(t, DEMO), await login(t, DEMO)];
      await http().get('/api/users/me').set('Authorization', `Bearer ${second.accessToken}`).expect(200);
      await http().post('/api/auth/logout-all').set('Authorization', `Bearer ${first.accessToken}`).expect(204);
      await http().get('/api/users/me').set('Authorization', `Bearer ${second.accessToken}`).expect(401);
      const fresh = await login(t, DEMO);
      await http().get('/api/users/me').set('Authorization', `Bearer ${fresh.accessToken}`).expect(200);
    } finally {
      await t.close();
    }
  });
});
