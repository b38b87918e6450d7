import type { Config } from '../config/config';
import type { Logger } from '../logger';
import type { AnyStoreDefinition } from './kit/registry';
import { MongoDatabase } from './mongo/mongo-database';
import { SqlDatabase } from './sql/sql-database';
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
 */
export function createDatabase(
  config: Config,
  logger: Logger,
  stores: readonly AnyStoreDefinition[],
  options: CreateDatabaseOptions = {},
): Database {
  const { url, engine, timeoutMs, refreshTokenCleanupIntervalMs } = config.database;
  const connectAttempts = options.connectAttempts ?? 5;
  if (engine === 'mongodb') return new MongoDatabase({ url, timeoutMs, connectAttempts, stores }, logger);
  return new SqlDatabase(
    { url, engine, timeoutMs, connectAttempts, stores, cleanupIntervalMs: options.cleanupJob === false ? 0 : refreshTokenCleanupIntervalMs },
    logger,
  );
}
