import type { Config } from '../config/config';
import { ConfigError } from '../config/config';
import { createLogger } from '../logger';
import { modules } from '../modules';
import { storesOf } from '../services';
import { createDatabase } from '../stores/create-database';
import { DuplicateKeyError } from '../stores/errors';
import type { Database } from '../stores/types';

// What the user-management commands (user:create, user:set-role) share: the database opened and migrated
// for one piece of work, and one way to end — exit 2 with the usage for a caller's mistake, 1 otherwise.

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** Opens the configured database with every registered store, applies the migrations, runs `work`, closes it. */
export async function withDatabase<T>(config: Config, work: (database: Database) => Promise<T>): Promise<T> {
  const database = createDatabase(config, createLogger({ env: config.env, logLevel: 'warn' }), storesOf(modules), {
    cleanupJob: false,
  });
  await database.connect();
  try {
    await database.migrate();
    return await work(database);
  } finally {
    await database.close();
  }
}

/** Runs a command's `main`, turning its failure into a message on stderr and an exit code. */
export function runUserCommand(name: string, usage: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof UsageError || String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n${usage}\n`);
      process.exit(2);
    }
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else if (error instanceof DuplicateKeyError) process.stderr.write('a user with this email exists already\n');
    else process.stderr.write(`${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
