import { authModule } from '../../src/modules/auth';
import { usersModule } from '../../src/modules/users';
import type { EngineTarget, StartedEngine } from './engines';
import { buildTestApp, type TestApp } from './test-app';

/**
 * For a suite of passkey flows on one engine: the engine and the app on it (database users, registration,
 * passkeys for `publicUrl`, a generous auth limit), opened before the suite and closed after; `env` adds
 * settings (MFA_ENCRYPTION_KEY, EMAIL_VERIFICATION, …). The answer gives the app once it is open.
 */
export function usePasskeyApp(
  target: EngineTarget,
  publicUrl: string,
  env: Record<string, string> = {},
): () => TestApp {
  let started: StartedEngine | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    started = await target.start();
    app = await buildTestApp({
      env: {
        DATABASE_URL: started.url,
        USER_STORE: 'database',
        PUBLIC_URL: publicUrl,
        PASSKEYS: 'true',
        AUTH_REGISTRATION: 'true',
        AUTH_RATE_LIMIT_MAX: '10000',
        ...env,
      },
      modules: [authModule, usersModule],
    });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await started?.stop();
  }, 60_000);
  return () => {
    if (!app) throw new Error('the app is opened in beforeAll');
    return app;
  };
}
