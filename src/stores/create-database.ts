import type { Config } from '../config/config';
import type { Logger } from '../logger';
import type { AnyStoreDefinition } from './kit/registry';
import type * as MongoModule from './mongo/mongo-database';
import type * as SqlModule from './sql/sql-database';
import type { Database } from './types';

export interface CreateDatabaseOptions {
  /** Run the in-process expired-token cleanup job (relational engines). Default true; the CLI turns it off. */
  cleanupJob?: boolean;
  /** Connection attempts at start-up before giving up (default 5, about 15 s of back-off). */
  connectAttempts?: number;
}

/**
 * The configured database with these stores opened on it: the engine comes from DATABASE_URL's scheme or
 * MONGO_URI (see loadConfig); with neither, embedded SQLite. The stores are the modules' (storesOf in
 * src/services.ts). Nothing connects until `connect()`.
 *
 * Each engine family is required only when configured: mongoose and the MongoDB driver alone hold about
 * 40 MiB, Sequelize about 30, and a process runs one engine (docs/performance.md). Within Sequelize, the
 * dialect's driver (pg, mysql2, tedious, sqlite3) is loaded by the dialect, i.e. only the configured one.
 */
export function createDatabase(
  config: Config,
  logger: Logger,
  stores: readonly AnyStoreDefinition[],
  options: CreateDatabaseOptions = {},
): Database {
  const { url, engine, timeoutMs, migrationTimeoutMs, refreshTokenCleanupIntervalMs } = config.database;
  const connectAttempts = options.connectAttempts ?? 5;
  if (engine === 'mongodb') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { MongoDatabase } = require('./mongo/mongo-database') as typeof MongoModule;
    const repairJob = options.cleanupJob !== false;
    return new MongoDatabase({ url, timeoutMs, migrationTimeoutMs, connectAttempts, stores, repairJob }, logger);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { SqlDatabase } = require('./sql/sql-database') as typeof SqlModule;
  return new SqlDatabase(
    {
      url,
      engine,
      timeoutMs,
      migrationTimeoutMs,
      connectAttempts,
      stores,
      cleanupIntervalMs: options.cleanupJob === false ? 0 : refreshTokenCleanupIntervalMs,
    },
    logger,
  );
}
