import { createHash, randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import request from 'supertest';
import { PasswordHasher } from '../../src/auth/passwords';
import { digestRefreshToken } from '../../src/auth/refresh-sessions';
import { loadConfig, type Config } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { startService, type RunningService } from '../../src/service';
import { createDatabase } from '../../src/stores/create-database';
import { DuplicateKeyError, StoreUnavailableError } from '../../src/stores/errors';
import type { MongoDatabase } from '../../src/stores/mongo/mongo-database';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import type { Database } from '../../src/stores/types';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { blackHole, closedPort, TcpProxy } from '../support/tcp-proxy';
import { refreshTokenStore, userStore } from '../../src/auth/stores/definitions';
import { checkMigrationsUndo } from '../support/migration-round-trip';
import { registeredStores } from '../support/registered-stores';
import type { SqlRefreshTokenStore } from '../../src/auth/stores/sql-refresh-token-store';
import { migrationsOf } from '../../src/stores/kit/registry';

// The store contract: the same cases against every engine (see test/support/engines.ts for where each
// engine comes from and why one may be skipped). Behaviour must not depend on the engine.

const logger = createLogger({ env: 'test', logLevel: 'silent' });
const TIMEOUT = '2s';

function configFor(url: string, extra: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', DATABASE_URL: url, DATABASE_TIMEOUT: TIMEOUT, ...extra });
}

/** A fresh token digest, as the auth module stores them: SHA-256 hex of a random token. */
function digest(): string {
  return createHash('sha256').update(randomBytes(32)).digest('hex');
}

function inSeconds(seconds: number): Date {
  return new Date(Date.now() + seconds * 1000);
}

/** The same URL pointing at another loopback port (engine kind and options kept). */
function withPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}

async function elapsed<T>(work: () => Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([work()]);
  return { ms: Math.round(performance.now() - started), result: result! };
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

const figures: string[] = [];

const engines = testEngines();

for (const target of engines) {
  const suite = target.skipReason ? describe.skip : describe;

  suite(`store contract on ${target.label}`, () => {
    const engine = useEngineDatabase(target, registeredStores, { DATABASE_TIMEOUT: TIMEOUT });
    let database: Database;
    beforeAll(() => {
      database = engine.database();
    });

    describe('refresh-token store', () => {
      it('creates, finds and deletes a record', async () => {
        const record = { userId: 'user-1', token: digest(), expiresAt: inSeconds(3600) };
        await database.store(refreshTokenStore).create(record);
        expect(await database.store(refreshTokenStore).findByToken(record.token)).toEqual({
          ...record,
          familyId: record.token,
          retiredAt: null,
        });
        expect(await database.store(refreshTokenStore).deleteByToken(record.token)).toBe(true);
        expect(await database.store(refreshTokenStore).findByToken(record.token)).toBeNull();
      });

      it('keeps expiresAt to the millisecond', async () => {
        const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_123);
        const token = digest();
        await database.store(refreshTokenStore).create({ userId: 'user-ms', token, expiresAt });
        expect((await database.store(refreshTokenStore).findByToken(token))?.expiresAt.getTime()).toBe(
          expiresAt.getTime(),
        );
      });

      it('rejects a duplicate token with DuplicateKeyError', async () => {
        const token = digest();
        await database.store(refreshTokenStore).create({ userId: 'user-1', token, expiresAt: inSeconds(3600) });
        await expect(
          database.store(refreshTokenStore).create({ userId: 'user-2', token, expiresAt: inSeconds(60) }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect((await database.store(refreshTokenStore).findByToken(token))?.userId).toBe('user-1');
      });

      it('never returns an expired record, even before it is removed', async () => {
        const expired = digest();
        await database.store(refreshTokenStore).create({ userId: 'user-1', token: expired, expiresAt: inSeconds(-1) });
        expect(await database.store(refreshTokenStore).findByToken(expired)).toBeNull();

        const soon = digest();
        await database.store(refreshTokenStore).create({ userId: 'user-1', token: soon, expiresAt: inSeconds(1.2) });
        expect(await database.store(refreshTokenStore).findByToken(soon)).not.toBeNull();
        await new Promise((resolve) => setTimeout(resolve, 1_400));
        expect(await database.store(refreshTokenStore).findByToken(soon)).toBeNull();
      });

      it('treats deleting an unknown token as a no-op', async () => {
        await expect(database.store(refreshTokenStore).deleteByToken(digest())).resolves.toBe(false);
      });

      it('handles 50 concurrent creates', async () => {
        const records = Array.from({ length: 50 }, (_, i) => ({
          userId: `user-${i % 7}`,
          token: digest(),
          expiresAt: inSeconds(3600),
        }));
        const started = performance.now();
        await Promise.all(records.map((record) => database.store(refreshTokenStore).create(record)));
        const ms = Math.round(performance.now() - started);
        figures.push(`${target.label}: 50 concurrent creates in ${ms} ms`);
        const found = await Promise.all(
          records.map((record) => database.store(refreshTokenStore).findByToken(record.token)),
        );
        expect(found).toEqual(records.map((record) => ({ ...record, familyId: record.token, retiredAt: null })));
      });

      if (target.engine === 'mongodb') {
        it('has every index every registered model declares', async () => {
          expect(await (database as MongoDatabase).indexesMissing()).toEqual([]);
        });

        it('has a unique index on token and a TTL index on expiresAt (expireAfterSeconds 0)', async () => {
          const indexes = await (database as MongoDatabase).connection.model('RefreshToken').collection.indexes();
          expect(indexes).toEqual(
            expect.arrayContaining([
              expect.objectContaining({ key: { token: 1 }, unique: true }),
              expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 }),
            ]),
          );
        });
      } else {
        it('cleanup removes exactly the expired rows', async () => {
          const sql = database as SqlDatabase;
          const now = new Date();
          const expired = Array.from({ length: 5 }, (_, i) => ({
            userId: 'user-c',
            token: digest(),
            expiresAt: new Date(now.getTime() - 1 - i * 60_000),
          }));
          // Expiring exactly at `now` counts as expired (the lookup requires expires_at > now).
          expired.push({ userId: 'user-c', token: digest(), expiresAt: now });
          const valid = Array.from({ length: 5 }, (_, i) => ({
            userId: 'user-c',
            token: digest(),
            expiresAt: new Date(now.getTime() + 1 + i * 60_000),
          }));
          for (const record of [...expired, ...valid]) await sql.store(refreshTokenStore).create(record);

          const RefreshToken = sql.sequelize.model('RefreshToken');
          const expiredBefore = await RefreshToken.count({ where: { expiresAt: { [Op.lte]: now } } });
          expect(expiredBefore).toBeGreaterThanOrEqual(expired.length);

          expect(await (sql.store(refreshTokenStore) as SqlRefreshTokenStore).deleteExpired(now)).toBe(expiredBefore);
          expect(await RefreshToken.count({ where: { expiresAt: { [Op.lte]: now } } })).toBe(0);
          expect(await RefreshToken.count({ where: { token: expired.map((r) => r.token) } })).toBe(0);
          expect(await RefreshToken.count({ where: { token: valid.map((r) => r.token) } })).toBe(valid.length);
        });
      }
    });

    describe('user store', () => {
      it('creates a user and finds it by id and by email, case-insensitively', async () => {
        const email = `Ada.${randomBytes(4).toString('hex')}@Example.COM`;
        const user = await database
          .store(userStore)
          .create({ email, passwordHash: '$argon2id$fake', role: 'admin', name: 'Ada' });
        expect(user).toEqual({
          id: expect.any(String),
          email: email.toLowerCase(),
          passwordHash: '$argon2id$fake',
          role: 'admin',
          name: 'Ada',
          sessionVersion: 0,
          emailVerified: true,
        });
        expect(await database.store(userStore).findById(user.id)).toEqual(user);
        expect(await database.store(userStore).findByEmail(email.toUpperCase())).toEqual(user);
        expect(await database.store(userStore).findByEmail(`  ${email.toLowerCase()} `)).toEqual(user);
        expect(await database.store(userStore).findById('00000000-0000-0000-0000-000000000000')).toBeNull();
        expect(await database.store(userStore).findByEmail('nobody@example.com')).toBeNull();
      });

      it('keeps emails unique whatever their case', async () => {
        const email = `grace.${randomBytes(4).toString('hex')}@example.com`;
        await database.store(userStore).create({ email, passwordHash: 'h1', role: 'user', name: null });
        await expect(
          database
            .store(userStore)
            .create({ email: email.toUpperCase(), passwordHash: 'h2', role: 'user', name: null }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
      });

      it('keeps apart emails that differ only by an accent or ß (one meaning of equal on every engine)', async () => {
        const tag = randomBytes(4).toString('hex');
        for (const email of [
          `jose.${tag}@example.com`,
          `josé.${tag}@example.com`,
          `strasse.${tag}@example.com`,
          `straße.${tag}@example.com`,
        ]) {
          await database.store(userStore).create({ email, passwordHash: 'h', role: 'user', name: null });
          expect((await database.store(userStore).findByEmail(email))?.email).toBe(email);
        }
      });

      it('keeps whether the address is verified: unverified until marked, verified by default', async () => {
        const tag = randomBytes(4).toString('hex');
        const registered = await database
          .store(userStore)
          .create({ email: `v.${tag}@example.com`, passwordHash: 'h', role: 'user', name: null, emailVerified: false });
        expect((await database.store(userStore).findById(registered.id))?.emailVerified).toBe(false);
        expect(await database.store(userStore).markEmailVerified(registered.id)).toBe(true);
        expect(await database.store(userStore).markEmailVerified(registered.id)).toBe(true); // again: still there
        expect((await database.store(userStore).findByEmail(`v.${tag}@example.com`))?.emailVerified).toBe(true);
        expect(await database.store(userStore).markEmailVerified('00000000-0000-0000-0000-000000000000')).toBe(false);
      });

      it('replaces the password hash', async () => {
        const user = await database.store(userStore).create({
          email: `h.${randomBytes(4).toString('hex')}@example.com`,
          passwordHash: 'old',
          role: 'user',
          name: null,
        });
        await database.store(userStore).updatePasswordHash(user.id, 'new');
        expect((await database.store(userStore).findById(user.id))?.passwordHash).toBe('new');
      });
    });

    describe('lifecycle', () => {
      it('answers ping', async () => {
        await expect(database.ping()).resolves.toBeUndefined();
      });

      it('migrate() is idempotent', async () => {
        await expect(database.migrate()).resolves.toBeUndefined();
      });

      it('describes itself without the password', () => {
        const password = new URL(engine.url().replace(/^sqlite:/, 'sqlite://x/')).password;
        expect(database.description).toMatch(
          new RegExp(`^${target.engine === 'mongodb' ? 'mongodb' : target.engine}\\b`),
        );
        expect(database.description).not.toContain('@');
        if (password.length >= 8) expect(database.description).not.toContain(decodeURIComponent(password));
      });
    });

    describe('HTTP login → refresh → logout', () => {
      it('runs the whole flow through the real service on this engine (users and refresh tokens in the database)', async () => {
        const service = await startService(configFor(engine.url(), { USER_STORE: 'database' }), logger, {
          port: 0,
          host: '127.0.0.1',
        });
        try {
          const { database: db } = service.services;
          const email = `flow.${randomBytes(4).toString('hex')}@example.com`;
          const password = 'correct horse battery staple';
          const user = await db
            .store(userStore)
            .create({ email, passwordHash: await new PasswordHasher().hash(password), role: 'user', name: 'Flow' });
          const http = request(service.server);

          await http.post('/api/auth/login').send({ email, password: 'wrong password' }).expect(401);
          const login = await http.post('/api/auth/login').send({ email: email.toUpperCase(), password }).expect(200);
          expect(login.body).toMatchObject({ status: 'success', data: { accessToken: expect.any(String) } });
          const cookie = ([] as string[])
            .concat(login.headers['set-cookie'] ?? [])
            .find((c) => c.startsWith('refreshToken='));
          const refreshToken = /^refreshToken=([^;]+)/.exec(cookie ?? '')?.[1];
          expect(refreshToken).toBeDefined();
          const stored = await db.store(refreshTokenStore).findByToken(digestRefreshToken(refreshToken!));
          expect(stored).toMatchObject({ userId: user.id });

          const refreshed = await http
            .post('/api/auth/refresh')
            .set('Cookie', `refreshToken=${refreshToken}`)
            .expect(200);
          expect(refreshed.body.data.accessToken).toEqual(expect.any(String));
          expect(await db.store(refreshTokenStore).findByToken(digestRefreshToken(refreshToken!))).toEqual(stored);

          await http
            .post('/api/auth/logout')
            .set('Authorization', `Bearer ${refreshed.body.data.accessToken}`)
            .set('Cookie', `refreshToken=${refreshToken}`)
            .expect(204);
          expect(await db.store(refreshTokenStore).findByToken(digestRefreshToken(refreshToken!))).toBeNull();
          await http.post('/api/auth/refresh').set('Cookie', `refreshToken=${refreshToken}`).expect(401);
        } finally {
          await service.stop();
        }
      }, 60_000);
    });

    if (target.engine !== 'mongodb') {
      // Near the end on purpose: it drops the schema and builds it again.
      describe('migrations', () => {
        it("every registered migration (the generated modules' included) undoes cleanly, each named if not", async () => {
          const applied = await checkMigrationsUndo(database as SqlDatabase);
          expect(applied).toEqual(migrationsOf(registeredStores).map((migration) => migration.name));
        }, 120_000);
      });
    }

    if (target.engine !== 'sqlite' && target.engine !== 'mongodb') {
      // Last on purpose: it drops the schema and builds it again.
      describe('concurrent start-up', () => {
        it('lets three instances migrate an empty database at once; each migration runs once', async () => {
          const sql = database as SqlDatabase;
          while ((await sql.migrator().down({ allowDestructive: true })).length > 0);
          expect((await sql.migrator().status()).executed).toEqual([]);

          const instances = [1, 2, 3].map(() =>
            createDatabase(configFor(engine.url()), logger, registeredStores, {
              cleanupJob: false,
              connectAttempts: 1,
            }),
          );
          try {
            await Promise.all(instances.map((instance) => instance.connect()));
            const results = await Promise.allSettled(instances.map((instance) => instance.migrate()));
            expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
          } finally {
            await Promise.all(instances.map((instance) => instance.close()));
          }
          const status = await sql.migrator().status();
          expect(status.pending).toEqual([]);
          // Every registered module's migrations, each applied once, in registration order.
          expect(status.executed).toEqual(migrationsOf(registeredStores).map((migration) => migration.name));
          const token = digest();
          await sql.store(refreshTokenStore).create({ userId: 'after-migrate', token, expiresAt: inSeconds(60) });
          expect(await sql.store(refreshTokenStore).findByToken(token)).not.toBeNull();
        }, 60_000);
      });
    }

    if (target.engine !== 'sqlite') {
      describe('failure and recovery', () => {
        it('fails with StoreUnavailableError within seconds when nothing listens', async () => {
          const url = withPort(engine.url(), await closedPort());
          const unreachable = createDatabase(configFor(url), logger, registeredStores, {
            cleanupJob: false,
            connectAttempts: 1,
          });
          try {
            const connect = await elapsed(() => unreachable.connect());
            expect(connect.result.status).toBe('rejected');
            expect((connect.result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
            const lookup = await elapsed(() => unreachable.store(refreshTokenStore).findByToken(digest()));
            expect((lookup.result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
            figures.push(
              `${target.label}: closed port → StoreUnavailableError after ${connect.ms} ms (connect), ${lookup.ms} ms (lookup)`,
            );
          } finally {
            await unreachable.close().catch(() => undefined);
          }
        }, 30_000);

        it('fails with StoreUnavailableError within the timeout when the server never answers', async () => {
          const hole = await blackHole();
          const hanging = createDatabase(configFor(withPort(engine.url(), hole.port)), logger, registeredStores, {
            cleanupJob: false,
            connectAttempts: 1,
          });
          try {
            const ping = await elapsed(() => hanging.ping());
            expect((ping.result as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
            figures.push(`${target.label}: silent server → StoreUnavailableError after ${ping.ms} ms`);
          } finally {
            await hanging.close().catch(() => undefined);
            await hole.close();
          }
        }, 30_000);

        it('reports 503 on /health/ready while the database is gone and recovers by itself', async () => {
          const upstream = new URL(engine.url());
          const proxy = new TcpProxy(upstream.hostname.replace(/^\[(.*)\]$/, '$1'), Number(upstream.port));
          await proxy.start();
          let service: RunningService | undefined;
          try {
            service = await startService(configFor(withPort(engine.url(), proxy.port)), logger, {
              port: 0,
              host: '127.0.0.1',
            });
            const agent = request(service.server);
            expect((await agent.get('/health/ready')).status).toBe(200);

            await proxy.cut();
            const down = await elapsed(() => agent.get('/health/ready').then((res) => res.status));
            expect(down.result).toEqual({ status: 'fulfilled', value: 503 });
            await expect(
              service.services.database.store(refreshTokenStore).findByToken(digest()),
            ).rejects.toBeInstanceOf(StoreUnavailableError);

            await proxy.start(); // same port: the database is back
            const recovered = await elapsed(() =>
              eventually(async () => (await agent.get('/health/ready')).status === 200, 20_000),
            );
            expect(recovered.result).toEqual({ status: 'fulfilled', value: true });
            figures.push(
              `${target.label}: outage → 503 in ${down.ms} ms; recovered ${recovered.ms} ms after the database returned`,
            );
            const token = digest();
            await service.services.database
              .store(refreshTokenStore)
              .create({ userId: 'user-r', token, expiresAt: inSeconds(60) });
            expect(await service.services.database.store(refreshTokenStore).findByToken(token)).not.toBeNull();
          } finally {
            await service?.stop();
            await proxy.cut();
          }
        }, 60_000);
      });
    }
  });
}

afterAll(() => {
  if (figures.length) console.log(`[store contract] figures\n  ${figures.join('\n  ')}`);
});
