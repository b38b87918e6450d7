import { createHash, randomBytes } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import request from 'supertest';
import type { Response } from 'supertest';
import { refreshTokenStore, userStore } from '../../src/auth/stores/definitions';
import { loadConfig } from '../../src/config/config';
import { DuplicateKeyError } from '../../src/stores/errors';
import { createLogger } from '../../src/logger';
import { startService } from '../../src/service';
import type { Database } from '../../src/stores/types';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { registeredStores } from '../support/registered-stores';

// Issue 15 on every engine: the refresh-token families (rotation, reuse detection, logout everywhere) and
// the user directory, at the store and through the real service over HTTP. Engines as in store-contract.

const logger = createLogger({ env: 'test', logLevel: 'silent' });
const digest = () => createHash('sha256').update(randomBytes(32)).digest('hex');
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);
const refreshCookieOf = (response: Response) =>
  /^refreshToken=([^;]*)/.exec(
    ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((c) => c.startsWith('refreshToken=')) ?? '',
  )?.[1];

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`auth depth on ${target.label}`, () => {
    const engine = useEngineDatabase(target, registeredStores, { DATABASE_TIMEOUT: '2s' });
    const configFor = (extra: Record<string, string> = {}) =>
      loadConfig({ NODE_ENV: 'test', DATABASE_URL: engine.url(), DATABASE_TIMEOUT: '2s', ...extra });
    let database: Database;
    beforeAll(() => {
      database = engine.database();
    });

    describe('refresh-token families', () => {
      it('rotate retires and stores the successor atomically: a failing successor leaves the token live', async () => {
        const tokens = database.store(refreshTokenStore);
        const [live, taken] = [digest(), digest()];
        await tokens.create({ userId: 'u-rot', token: live, expiresAt: inSeconds(60), familyId: 'fam-rot' });
        await tokens.create({ userId: 'u-rot', token: taken, expiresAt: inSeconds(60), familyId: 'fam-other' });
        // The successor's digest exists already: its insert fails after the retire in the same operation.
        await expect(
          tokens.rotate(
            live,
            { userId: 'u-rot', token: taken, expiresAt: inSeconds(60), familyId: 'fam-rot' },
            new Date(),
          ),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await tokens.findByToken(live)).toMatchObject({ retiredAt: null });
        const successor = digest();
        expect(
          await tokens.rotate(
            live,
            { userId: 'u-rot', token: successor, expiresAt: inSeconds(60), familyId: 'fam-rot' },
            new Date(),
          ),
        ).toBe(true);
        expect((await tokens.findByToken(live))?.retiredAt).toBeInstanceOf(Date);
        expect(await tokens.findByToken(successor)).toMatchObject({ familyId: 'fam-rot', retiredAt: null });
        expect(
          await tokens.rotate(
            live,
            { userId: 'u-rot', token: digest(), expiresAt: inSeconds(60), familyId: 'fam-rot' },
            new Date(),
          ),
        ).toBe(false);
      });

      it('a row written without a family (an instance older than migration 0003) goes with its family and with logout', async () => {
        const tokens = database.store(refreshTokenStore);
        const [first, second] = [digest(), digest()];
        for (const token of [first, second]) {
          if (target.engine === 'mongodb') {
            await tokens.create({ userId: 'u-old', token, expiresAt: inSeconds(60) }); // MongoDB stores no family when none is given
            continue;
          }
          // What an old instance writes: no family_id at all.
          const model = (database as unknown as { sequelize: Sequelize }).sequelize.models.RefreshToken;
          await model.create({ token, userId: 'u-old', expiresAt: inSeconds(60), familyId: null });
        }
        expect(await tokens.findByToken(first)).toMatchObject({ familyId: first });
        expect(await tokens.deleteFamily(first)).toBe(1); // the family reuse detection revokes, or logout ends
        expect(await tokens.findByToken(first)).toBeNull();
        expect(await tokens.findByToken(second)).not.toBeNull(); // no other family-less row goes with it
      });

      it('a record without a family is a family of its own; retire marks it to the millisecond', async () => {
        const tokens = database.store(refreshTokenStore);
        const token = digest();
        await tokens.create({ userId: 'u-legacy', token, expiresAt: inSeconds(60) });
        expect(await tokens.findByToken(token)).toMatchObject({ familyId: token, retiredAt: null });
        const at = new Date(Date.now() - 123);
        expect(await tokens.retire(token, at)).toBe(true);
        expect((await tokens.findByToken(token))?.retiredAt?.getTime()).toBe(at.getTime());
        expect(await tokens.retire(token, new Date())).toBe(false); // retired once only
        expect(await tokens.retire(digest(), new Date())).toBe(false); // unknown
      });

      it('of ten concurrent retires of one token exactly one succeeds', async () => {
        const tokens = database.store(refreshTokenStore);
        const token = digest();
        await tokens.create({
          userId: 'u-race',
          token,
          expiresAt: inSeconds(60),
          familyId: `f-${digest().slice(0, 8)}`,
        });
        const results = await Promise.all(Array.from({ length: 10 }, () => tokens.retire(token, new Date())));
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it('deletes a family, or every token of a user, and nothing else', async () => {
        const tokens = database.store(refreshTokenStore);
        const [family, other] = [`f-${digest().slice(0, 12)}`, `f-${digest().slice(0, 12)}`];
        const user = `u-${digest().slice(0, 8)}`;
        const inFamily = [digest(), digest()];
        const otherFamily = digest();
        const otherUser = digest();
        for (const token of inFamily)
          await tokens.create({ userId: user, token, expiresAt: inSeconds(60), familyId: family });
        await tokens.create({ userId: user, token: otherFamily, expiresAt: inSeconds(60), familyId: other });
        await tokens.create({ userId: `${user}-2`, token: otherUser, expiresAt: inSeconds(60) });
        expect(await tokens.deleteFamily(family)).toBe(2);
        expect(await tokens.findByToken(inFamily[0])).toBeNull();
        expect(await tokens.findByToken(otherFamily)).not.toBeNull();
        expect(await tokens.deleteByUser(user)).toBe(1);
        expect(await tokens.findByToken(otherFamily)).toBeNull();
        expect(await tokens.findByToken(otherUser)).not.toBeNull();
      });
    });

    describe('user directory', () => {
      it("has an index in the directory's order (created_at, id)", async () => {
        if (target.engine === 'mongodb') {
          const { toCreate } = await (
            database as unknown as {
              connection: { models: Record<string, { diffIndexes(): Promise<{ toCreate: unknown[] }> }> };
            }
          ).connection.models.User.diffIndexes();
          expect(toCreate).toEqual([]);
          return;
        }
        const indexes = (await (database as unknown as { sequelize: Sequelize }).sequelize
          .getQueryInterface()
          .showIndex('users')) as { name: string; fields: { attribute: string }[] }[];
        const ordered = indexes.find((index) => index.name === 'users_created_at_id');
        expect(ordered?.fields.map((field) => field.attribute)).toEqual(['created_at', 'id']);
      });

      it('lists oldest first with the total, changes a role, deletes a user', async () => {
        const users = database.store(userStore);
        const tag = randomBytes(4).toString('hex');
        const created = [];
        for (let i = 0; i < 3; i += 1) {
          created.push(
            await users.create({
              email: `dir-${tag}-${i}@example.com`,
              passwordHash: 'x',
              role: 'user',
              name: `D${i}`,
            }),
          );
          await new Promise((resolve) => setTimeout(resolve, 5)); // distinct creation times
        }
        const all = await users.list({ limit: 100, offset: 0, countUpTo: 1000 });
        const ours = all.items.filter((user) => user.email.startsWith(`dir-${tag}`));
        expect(ours.map((user) => user.id)).toEqual(created.map((user) => user.id));
        expect(all.total).toBeGreaterThanOrEqual(3);
        const total = all.total!;
        const page = await users.list({ limit: 2, offset: 1, countUpTo: 1000 });
        expect(page).toMatchObject({ limit: 2, offset: 1, total, totalCapped: false });
        expect(page.items).toHaveLength(Math.min(2, total - 1));
        expect((await users.list({ limit: 2, offset: 0, countUpTo: 1 })).totalCapped).toBe(total > 1);
        expect(await users.list({ limit: 2, offset: 0 })).not.toHaveProperty('total');
        // By cursor: the same users as the offset pages, oldest first, across page boundaries.
        const walked: string[] = [];
        let after: unknown[] | undefined;
        for (let i = 0; i < 100; i += 1) {
          const next = await users.list({ limit: 2, offset: 0, after });
          walked.push(...next.items.map((user) => user.id));
          if (!next.nextCursor) break;
          const last = next.items.at(-1)!;
          after = [last.createdAt, last.id];
        }
        expect(walked).toEqual(all.items.map((user) => user.id));

        expect(await users.updateRole(created[0].id, 'admin')).toMatchObject({ id: created[0].id, role: 'admin' });
        expect((await users.findById(created[0].id))?.role).toBe('admin');
        expect(await users.updateRole('01900000-0000-7000-8000-000000000000', 'admin')).toBeNull();
        expect(await users.delete(created[1].id)).toBe(true);
        expect(await users.delete(created[1].id)).toBe(false);
        expect(await users.findById(created[1].id)).toBeNull();
      });

      it('raises the session version on endSessions and a password change, and keeps the last holder of a role', async () => {
        const users = database.store(userStore);
        const tag = randomBytes(4).toString('hex');
        const keeper = `keeper-${tag}`; // a role of this test's own, so other tests' users do not count
        const guard = { keepRole: keeper };
        const [a, b] = [
          await users.create({ email: `sv-${tag}-a@example.com`, passwordHash: 'x', role: keeper, name: null }),
          await users.create({ email: `sv-${tag}-b@example.com`, passwordHash: 'x', role: keeper, name: null }),
        ];
        expect(a.sessionVersion).toBe(0);
        expect(await users.endSessions(a.id)).toBe(true);
        expect(await users.endSessions('01900000-0000-7000-8000-000000000000')).toBe(false);
        expect((await users.findById(a.id))?.sessionVersion).toBe(1);
        // A role change leaves the version alone (refresh tokens go on); the same role again is no change at all.
        expect(await users.updateRole(a.id, keeper, guard)).toMatchObject({ role: keeper, sessionVersion: 1 });
        expect(await users.updateRole(a.id, 'user', guard)).toMatchObject({ role: 'user', sessionVersion: 1 });
        expect(await users.changePassword(a.id, 'new-hash')).toBe(2);
        expect(await users.findById(a.id)).toMatchObject({ passwordHash: 'new-hash', sessionVersion: 2 });
        expect(await users.changePassword('01900000-0000-7000-8000-000000000000', 'h')).toBeUndefined();
        // b is now the last holder: neither demoted nor deleted while guarded; unguarded, the store obeys.
        expect(await users.updateRole(b.id, 'user', guard)).toBe('last-admin');
        expect(await users.delete(b.id, guard)).toBe('last-admin');
        expect((await users.findById(b.id))?.role).toBe(keeper);
        expect(await users.updateRole('01900000-0000-7000-8000-000000000000', 'user', guard)).toBeNull();
        expect(await users.delete('01900000-0000-7000-8000-000000000000', guard)).toBe(false);
        // With a second holder, b may go.
        await users.updateRole(a.id, keeper, guard);
        expect(await users.delete(b.id, guard)).toBe(true);
        expect(await users.updateRole(a.id, 'user', guard)).toBe('last-admin');
      });
    });

    describe('over HTTP with REFRESH_ROTATION=true, REFRESH_REUSE_GRACE=2s', () => {
      it('rotates, tolerates a racing replay within the grace window, revokes the family on a later replay', async () => {
        const service = await startService(
          configFor({
            USER_STORE: 'database',
            AUTH_REGISTRATION: 'true',
            REFRESH_ROTATION: 'true',
            REFRESH_REUSE_GRACE: '2s',
            AUTH_RATE_LIMIT_MAX: '1000',
          }),
          logger,
          { port: 0, host: '127.0.0.1' },
        );
        try {
          const http = request(service.server);
          const account = {
            name: 'Rota',
            email: `rota-${randomBytes(4).toString('hex')}@example.com`,
            password: 'rotation passphrase 1',
          };
          await http.post('/api/auth/register').send(account).expect(201);
          const first = refreshCookieOf(await http.post('/api/auth/login').send(account).expect(200))!;
          const refresh = (token: string) => http.post('/api/auth/refresh').set('Cookie', `refreshToken=${token}`);

          const second = refreshCookieOf(await refresh(first).expect(200));
          expect(second).toBeDefined();
          expect(second).not.toBe(first);
          const third = refreshCookieOf(await refresh(second!).expect(200))!;
          // Within the grace window a replaced token still refreshes, without a new cookie.
          expect(refreshCookieOf(await refresh(second!).expect(200))).toBeUndefined();

          // Five tabs racing on the newest token: all succeed, and one live token is left in the family.
          const racing = await Promise.all(Array.from({ length: 5 }, () => refresh(third).expect(200)));
          const issued = racing.map(refreshCookieOf).filter(Boolean);
          expect(issued).toHaveLength(1);

          await new Promise((resolve) => setTimeout(resolve, 2_200));
          const replay = await refresh(first).expect(401);
          expect(refreshCookieOf(replay)).toBe(''); // cleared
          await refresh(issued[0]!).expect(401); // the newest token went with its family
        } finally {
          await service.stop();
        }
      }, 60_000);

      it('logout-all ends every session of the caller, and only theirs', async () => {
        const service = await startService(
          configFor({ USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '1000' }),
          logger,
          {
            port: 0,
            host: '127.0.0.1',
          },
        );
        try {
          const http = request(service.server);
          const tag = randomBytes(4).toString('hex');
          const [me, other] = [`all-${tag}@example.com`, `other-${tag}@example.com`].map((email) => ({
            name: 'L',
            email,
            password: 'logout everywhere 1',
          }));
          for (const account of [me, other]) await http.post('/api/auth/register').send(account).expect(201);
          const phone = await http.post('/api/auth/login').send(me).expect(200);
          const laptop = await http.post('/api/auth/login').send(me).expect(200);
          const others = await http.post('/api/auth/login').send(other).expect(200);
          await http
            .post('/api/auth/logout-all')
            .set('Authorization', `Bearer ${phone.body.data.accessToken}`)
            .expect(204);
          for (const session of [phone, laptop])
            await http
              .post('/api/auth/refresh')
              .set('Cookie', `refreshToken=${refreshCookieOf(session)}`)
              .expect(401);
          await http
            .post('/api/auth/refresh')
            .set('Cookie', `refreshToken=${refreshCookieOf(others)}`)
            .expect(200);
        } finally {
          await service.stop();
        }
      }, 60_000);
    });
  });
}
