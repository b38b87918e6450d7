import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { authModule } from '../../src/modules/auth';
import { usersModule } from '../../src/modules/users';
import { setCookies } from '../support/auth-helpers';
import { testEngines, type StartedEngine } from '../support/engines';
import { MailCatcher } from '../support/mail-catcher';
import { buildTestApp, type TestApp } from '../support/test-app';

// Every switch ends what it should, over HTTP on every engine here: logout everywhere and a password change
// end the known-device cookies issued before (the session version is inside them), and turning
// EMAIL_VERIFICATION to `required` refuses the refresh cookies and access tokens unverified users already hold.

const PASSWORD = 'a quiet lighthouse keeper';
const NEW_PASSWORD = 'another quiet lighthouse keeper';
const cookieNamed = (res: request.Response, name: string) =>
  setCookies(res)
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0];

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`switches that end sessions on ${target.label}`, () => {
    const mail = new MailCatcher();
    let started: StartedEngine | undefined;
    let directory: string | undefined;
    let databaseUrl = '';
    let smtpUrl = '';
    const open: TestApp[] = [];

    /** An app on this engine's database (one file for SQLite, so two apps share it as two deployments would). */
    const appWith = async (env: Record<string, string>) => {
      const app = await buildTestApp({
        env: {
          DATABASE_URL: databaseUrl,
          USER_STORE: 'database',
          AUTH_REGISTRATION: 'true',
          AUTH_RATE_LIMIT_MAX: '100000',
          TRUST_PROXY: '1',
          SMTP_URL: smtpUrl,
          PUBLIC_URL: 'https://app.example.test',
          ...env,
        },
        modules: [authModule, usersModule],
      });
      open.push(app);
      return app;
    };

    beforeAll(async () => {
      started = await target.start();
      directory = mkdtempSync(join(tmpdir(), 'session-switches-'));
      databaseUrl = target.engine === 'sqlite' ? `sqlite:${join(directory, 'app.sqlite')}` : started.url;
      smtpUrl = await mail.start();
    }, 240_000);
    afterAll(async () => {
      for (const app of open) await app.close();
      await mail.stop();
      await started?.stop();
      if (directory) rmSync(directory, { recursive: true, force: true });
    }, 60_000);

    describe('known-device cookies', () => {
      const throttled = { LOGIN_THROTTLE_FAILURES: '3', LOGIN_THROTTLE_ACCOUNT_FAILURES: '3' };
      const login = (app: TestApp, email: string, password: string, from: string, device?: string) => {
        const req = request(app.app.callback()).post('/api/auth/login').set('X-Forwarded-For', from);
        return (device ? req.set('Cookie', device) : req).send({ email, password });
      };
      /** A user with a device cookie from a login, and an account-wide lock made by guessers from three addresses. */
      const lockedWithDevice = async (app: TestApp) => {
        const email = `device-${randomUUID().slice(0, 8)}@example.com`;
        await request(app.app.callback())
          .post('/api/auth/register')
          .send({ name: 'Owner', email, password: PASSWORD })
          .expect(201);
        const signedIn = await login(app, email, PASSWORD, '203.0.113.1').expect(200);
        const device = cookieNamed(signedIn, 'loginDevice')!;
        for (const from of ['192.0.2.1', '192.0.2.2', '192.0.2.3'])
          await login(app, email, 'a wrong guess', from).expect(401);
        await login(app, email, PASSWORD, '198.51.100.7').expect(429); // locked for unknown clients
        await login(app, email, PASSWORD, '198.51.100.7', device).expect(200); // the owner's device passes
        return { email, device, bearer: `Bearer ${signedIn.body.data.accessToken as string}` };
      };

      it('logout everywhere ends them: a device cookie issued before is held by the lock like any client', async () => {
        const app = await appWith(throttled);
        const { email, device, bearer } = await lockedWithDevice(app);
        await request(app.app.callback()).post('/api/auth/logout-all').set('Authorization', bearer).expect(204);
        const after = await login(app, email, PASSWORD, '198.51.100.8', device).expect(429);
        expect(Number(after.headers['retry-after'])).toBeGreaterThan(0);
      });

      it('a password change ends them too', async () => {
        const app = await appWith(throttled);
        const { email, device, bearer } = await lockedWithDevice(app);
        await request(app.app.callback())
          .post('/api/auth/password')
          .set('Authorization', bearer)
          .set('Cookie', device)
          .set('X-Forwarded-For', '198.51.100.9')
          .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
          .expect(204);
        await login(app, email, NEW_PASSWORD, '198.51.100.10', device).expect(429);
      });
    });

    it('turning EMAIL_VERIFICATION to required refuses the sessions unverified users hold; a verified user keeps theirs', async () => {
      const before = await appWith({ EMAIL_VERIFICATION: 'optional' });
      const session = async (verify: boolean) => {
        const email = `switch-${randomUUID().slice(0, 8)}@example.com`;
        await request(before.app.callback())
          .post('/api/auth/register')
          .send({ name: 'Switch', email, password: PASSWORD })
          .expect(202);
        if (verify) {
          const token = /token=([\w-]+)/.exec((await mail.waitFor(email))[0]!.text)![1];
          await request(before.app.callback()).post('/api/auth/verify-email').send({ token }).expect(204);
        }
        const signedIn = await request(before.app.callback())
          .post('/api/auth/login')
          .send({ email, password: PASSWORD })
          .expect(200);
        return {
          cookie: cookieNamed(signedIn, 'refreshToken')!,
          bearer: `Bearer ${signedIn.body.data.accessToken as string}`,
        };
      };
      const unverified = await session(false);
      const verified = await session(true);

      const after = await appWith({ EMAIL_VERIFICATION: 'required' }); // the same database, the switch turned
      const http = () => request(after.app.callback());
      const refused = await http().post('/api/auth/refresh').set('Cookie', unverified.cookie).expect(403);
      expect(refused.body.message).toMatch(/^Email address not verified/);
      expect(cookieNamed(refused, 'refreshToken')).toBe('refreshToken='); // cleared
      expect(
        (await http().get('/api/users/me').set('Authorization', unverified.bearer).expect(401)).body.message,
      ).toMatch(/^Email address not verified/);

      await http().post('/api/auth/refresh').set('Cookie', verified.cookie).expect(200);
      await http().get('/api/users/me').set('Authorization', verified.bearer).expect(200);
    });
  });
}
