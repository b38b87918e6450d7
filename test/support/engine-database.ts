import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { createDatabase } from '../../src/stores/create-database';
import type { AnyStoreDefinition } from '../../src/stores/kit/registry';
import type { Database } from '../../src/stores/types';
import type { EngineTarget, StartedEngine } from './engines';

const logger = createLogger({ env: 'test', logLevel: 'silent' });

/** A started engine and a migrated database on it, for the tests of one suite. */
export interface EngineDatabase {
  database(): Database;
  /** The engine's URL: for more connections, or a service on the same database. */
  url(): string;
}

/**
 * For a suite on one engine: starts it and opens a migrated database with these stores (and the stores they
 * depend on) before the suite, closes both after. `env` adds settings (e.g. DATABASE_TIMEOUT).
 */
export function useEngineDatabase(
  target: EngineTarget,
  stores: readonly AnyStoreDefinition[],
  env: Record<string, string> = {},
): EngineDatabase {
  let started: StartedEngine | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    started = await target.start();
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: started.url, DATABASE_TIMEOUT: '5s', ...env });
    database = createDatabase(config, logger, stores, { cleanupJob: false, connectAttempts: 3 });
    await database.connect();
    await database.migrate();
  }, 240_000);
  afterAll(async () => {
    await database?.close();
    await started?.stop();
  }, 60_000);
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the engine and its database are opened in beforeAll');
    return value;
  };
  return { database: () => opened(database), url: () => opened(started).url };
}
