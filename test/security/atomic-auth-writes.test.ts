import request from 'supertest';
import { refreshTokenStore, userStore } from '../../src/auth/stores/definitions';
import { modules } from '../../src/modules';
import { login, refreshTokenFrom } from '../support/auth-helpers';
import { buildTestApp, type TestApp } from '../support/test-app';

// Multi-step auth writes cannot half-apply (docs/decisions/010): the user's row is the one place that ends
// sessions (its session version, or its absence), in one statement; deleting refresh records afterwards is
// cleanup. Here the cleanup step fails on purpose, between the steps, and nothing the old session holds works.

const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '100000' };
const PASSWORD = 'tidal observatory lantern';

describe('a failure between the steps of an auth write', () => {
  let t: TestApp;
  const http = () => request(t.app.callback());
  let n = 0;

  async function someone(role = 'user') {
    n += 1;
    const email = `atomic-${n}@example.com`;
    const { id } = (await http().post('/api/auth/register').send({ name: 'A', email, password: PASSWORD }).expect(201))
      .body.data;
    if (role !== 'user') await t.services.database.store(userStore).updateRole(id, role);
    const session = await login(t, { email, password: PASSWORD });
    return { id, email, ...session };
  }

  /** Makes the refresh store's per-user delete fail once, as an outage between the steps would. */
  function failNextRevokeAll() {
    const store = t.services.database.store(refreshTokenStore);
    const original = store.deleteByUser.bind(store);
    store.deleteByUser = async () => {
      store.deleteByUser = original;
      throw new Error('the second step failed');
    };
  }

  beforeAll(async () => {
    t = await buildTestApp({ env: ENV, modules });
  });
  afterAll(() => t.close());

  it('password change: the new password holds and every old token is refused, though the records were not deleted', async () => {
    const user = await someone();
    failNextRevokeAll();
    await http()
      .post('/api/auth/password')
      .set('Authorization', `Bearer ${user.accessToken}`)
      .send({ currentPassword: PASSWORD, newPassword: 'another tidal observatory' })
      .expect(500);
    await http().post('/api/auth/refresh').set('Cookie', `refreshToken=${user.refreshToken}`).expect(401);
    await http().get('/api/users/me').set('Authorization', `Bearer ${user.accessToken}`).expect(401);
    await login(t, { email: user.email, password: 'another tidal observatory' });
  });

  it('logout everywhere: every old token is refused though the records were not deleted', async () => {
    const user = await someone();
    failNextRevokeAll();
    await http().post('/api/auth/logout-all').set('Authorization', `Bearer ${user.accessToken}`).expect(500);
    await http().post('/api/auth/refresh').set('Cookie', `refreshToken=${user.refreshToken}`).expect(401);
    expect(
      refreshTokenFrom(
        await http().post('/api/auth/login').send({ email: user.email, password: PASSWORD }).expect(200),
      ),
    ).toBeDefined();
  });

  it("user delete: the deleted user's refresh token and access token are refused", async () => {
    const [admin, gone] = [await someone('admin'), await someone()];
    failNextRevokeAll();
    await http().delete(`/api/users/${gone.id}`).set('Authorization', `Bearer ${admin.accessToken}`).expect(500);
    await http().post('/api/auth/refresh').set('Cookie', `refreshToken=${gone.refreshToken}`).expect(401);
    await http().get('/api/users/me').set('Authorization', `Bearer ${gone.accessToken}`).expect(401);
  });
});
