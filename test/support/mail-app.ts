import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { authModule } from '../../src/modules/auth';
import { usersModule } from '../../src/modules/users';
import type { EngineTarget, StartedEngine } from './engines';
import { MailCatcher } from './mail-catcher';
import { buildTestApp, type TestApp } from './test-app';

export const MAIL_PUBLIC_URL = 'https://app.example.test';
export const MAIL_TEST_PASSWORD = 'correct horse battery staple 42';

/**
 * For a suite of account-mail flows on one engine: the engine, a real SMTP server on loopback, and the app on
 * both (database users, registration, mail), opened before the suite and closed after. `register()` makes a
 * user with MAIL_TEST_PASSWORD and answers their address.
 */
export function useMailApp(target: EngineTarget, env: Record<string, string> = {}) {
  let started: StartedEngine | undefined;
  let app: TestApp | undefined;
  const mail = new MailCatcher();
  let counter = 0;
  const verificationOn = (env.EMAIL_VERIFICATION ?? 'off') !== 'off';
  const opened = () => {
    if (!app) throw new Error('the app is opened in beforeAll');
    return app;
  };
  const http = () => request(opened().app.callback());
  beforeAll(async () => {
    started = await target.start();
    app = await buildTestApp({
      env: {
        DATABASE_URL: started.url,
        USER_STORE: 'database',
        AUTH_REGISTRATION: 'true',
        AUTH_RATE_LIMIT_MAX: '1000',
        SMTP_URL: await mail.start(),
        PUBLIC_URL: MAIL_PUBLIC_URL,
        ...env,
      },
      modules: [authModule, usersModule],
    });
  }, 240_000);
  afterAll(async () => {
    await app?.close();
    await mail.stop();
    await started?.stop();
  }, 60_000);
  const register = async () => {
    counter += 1;
    const email = `mail-${counter}-${randomUUID().slice(0, 8)}@example.com`; // unique across files sharing a database
    // With email verification on, 202 and a message (a taken address answers alike); without, 201 and the user.
    await http()
      .post('/api/auth/register')
      .send({ name: 'Mail Tester', email, password: MAIL_TEST_PASSWORD })
      .expect(verificationOn ? 202 : 201);
    return email;
  };
  return { app: opened, http, mail, register };
}
