import { Writable } from 'node:stream';
import type Koa from 'koa';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/config';
import type { RequestState } from '../../src/http/routing/route';
import { LOG_OPTIONS, type Logger } from '../../src/logger';
import { openApp } from '../../src/service';
import type { ModuleFactory, Services } from '../../src/services';

/** Fixed test secrets (≥ 32 bytes, different), so tests can mint their own tokens. */
export const TEST_SECRETS = {
  JWT_SECRET: 'test-access-secret-0123456789abcdef0123456789',
  REFRESH_TOKEN_SECRET: 'test-refresh-secret-0123456789abcdef012345678',
};

/** A logger whose lines are kept in memory, so tests can read what was logged. */
export function memoryLogger(level = 'debug'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ ...LOG_OPTIONS, level }, sink); // the service's own redaction and error serializer
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines };
}

export interface TestApp {
  app: Koa<RequestState>;
  config: Config;
  services: Services;
  logLines: () => Record<string, unknown>[];
  /**
   * A new user in the app's user store (USER_STORE=database) with this role, and an `Authorization` value
   * for them: the guards accept only tokens of users who exist, at their current session version.
   */
  signIn(role?: string): Promise<{ id: string; authorization: string }>;
  close(): Promise<void>;
}

let signedIn = 0;

/**
 * The real app on the real default store (in-memory SQLite under test), with the given environment on
 * top of the test secrets and the given modules. Close it in afterAll/afterEach.
 */
export async function buildTestApp(
  options: { env?: Record<string, string>; modules?: readonly ModuleFactory[] } = {},
): Promise<TestApp> {
  const config = loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS, ...options.env });
  const { logger, lines } = memoryLogger();
  const { app, services } = await openApp(config, logger, options.modules ?? []);
  const signIn = async (role = 'user') => {
    signedIn += 1;
    const email = `signed-in-${signedIn}-${process.pid}-${Date.now()}@example.test`;
    const user = await services.users.create({ email, passwordHash: 'not-a-password-hash', role, name: null });
    return { id: user.id, authorization: `Bearer ${services.tokens.signAccessToken(user)}` };
  };
  return { app, config, services, logLines: lines, signIn, close: () => services.lifecycle.closeAll(logger) };
}
