import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeAt, wrongCodes } from '../support/totp-codes';
import request from 'supertest';
import { authModule } from '../../src/modules/auth';
import { findRedisServer, startRedisServer, type RedisServer } from '../support/redis-server';
import { buildTestApp, type TestApp } from '../support/test-app';
import { skipNotice } from '../support/skip-notice';

// Wrong codes are counted where the login throttle counts wrong passwords: with REDIS_URL, in Redis, so
// replicas share one count and a guesser gains nothing by spreading codes over them. Two app instances on
// one database file and one redis-server started here (skipped, and said, without the binary).

const redisBinary = findRedisServer();
if (!redisBinary)
  skipNotice(
    'SKIPPED: two-factor throttle through Redis: redis-server is not installed (apt-get install -y redis-server)',
  );
const PASSWORD = 'correct horse battery staple 42';

(redisBinary ? describe : describe.skip)('two-factor codes counted through Redis (REDIS_URL)', () => {
  let redis: RedisServer;
  let dir: string;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    redis = await startRedisServer(redisBinary!);
    dir = mkdtempSync(join(tmpdir(), 'mfa-redis-'));
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const replica = async () => {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'app.sqlite')}`,
      USER_STORE: 'database',
      AUTH_REGISTRATION: 'true',
      AUTH_RATE_LIMIT_MAX: '1000',
      REDIS_URL: redis.url,
      MFA_ENCRYPTION_KEY: 'test-mfa-sealing-key-0123456789abcdef0123456789',
    };
    const app = await buildTestApp({ env, modules: [authModule] });
    apps.push(app);
    return request(app.app.callback());
  };

  it('five wrong codes spread over two replicas hold back the right one on both', async () => {
    const first = await replica();
    const second = await replica();
    const email = `mfa-redis-${Date.now()}@example.com`;
    await first.post('/api/auth/register').send({ name: 'Two Factor', email, password: PASSWORD }).expect(201);
    const bearer = `Bearer ${(await first.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200)).body.data.accessToken}`;
    const { secret } = (
      await first.post('/api/auth/mfa/enroll').set('Authorization', bearer).send({ password: PASSWORD }).expect(200)
    ).body.data;
    await first
      .post('/api/auth/mfa/confirm')
      .set('Authorization', bearer)
      .send({ code: await codeAt(secret) })
      .expect(200);
    const { mfaToken } = (await second.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200)).body
      .data;
    for (const [i, code] of (await wrongCodes(secret, 5)).entries())
      await (i % 2 ? second : first).post('/api/auth/mfa/verify').send({ mfaToken, code }).expect(401);
    const right = await codeAt(secret, 1);
    await first.post('/api/auth/mfa/verify').send({ mfaToken, code: right }).expect(429);
    await second.post('/api/auth/mfa/verify').send({ mfaToken, code: right }).expect(429);
  });

  it('an mfaToken spent on one replica is refused on the other', async () => {
    const first = await replica();
    const second = await replica();
    const email = `mfa-spent-${Date.now()}@example.com`;
    await first.post('/api/auth/register').send({ name: 'Two Factor', email, password: PASSWORD }).expect(201);
    const bearer = `Bearer ${(await first.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200)).body.data.accessToken}`;
    const { secret } = (
      await first.post('/api/auth/mfa/enroll').set('Authorization', bearer).send({ password: PASSWORD }).expect(200)
    ).body.data;
    const { recoveryCodes } = (
      await first
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(secret) })
        .expect(200)
    ).body.data;
    const { mfaToken } = (await first.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200)).body
      .data;
    await first
      .post('/api/auth/mfa/verify')
      .send({ mfaToken, code: await codeAt(secret, 1) })
      .expect(200);
    await second.post('/api/auth/mfa/verify').send({ mfaToken, recoveryCode: recoveryCodes[0] }).expect(401);
  });
});
