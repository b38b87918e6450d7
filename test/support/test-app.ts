import { Writable } from 'node:stream';
import type Koa from 'koa';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/config';
import type { RequestState } from '../../src/http/routing/route';
import type { Logger } from '../../src/logger';
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
  const logger = pino({ level, base: undefined }, sink);
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
  close(): Promise<void>;
}

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
  return { app, config, services, logLines: lines, close: () => services.lifecycle.closeAll(logger) };
}
