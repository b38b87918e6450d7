import { ConfigError, loadConfig } from '../config/config';
import { createLogger } from '../logger';
import { modules } from '../modules';
import { storesOf } from '../services';
import { createDatabase } from '../stores/create-database';
import type { MongoDatabase } from '../stores/mongo/mongo-database';
import { SqlDatabase } from '../stores/sql/sql-database';

// `npm run db:migrate [-- up|down [--allow-destructive]|status]` (compiled: `node dist/cli/db-migrate.js …`):
// brings the configured database's schema up to date, reverts the last migration, or lists them. A
// migration, or a revert, that would destroy data (a table or field dropped while it holds some) runs only
// with `--allow-destructive`: start-up never runs it. Reads the same environment as the service (DATABASE_URL /
// MONGO_URI, DATABASE_TIMEOUT). Exit 0 on success, 1 on failure, 2 on bad usage.

const USAGE = 'usage: db-migrate [up [--allow-destructive] | down [--allow-destructive] | status]';

async function main(args: readonly string[]): Promise<number> {
  const command = args.find((arg) => !arg.startsWith('--')) ?? 'up';
  const flags = args.filter((arg) => arg.startsWith('--'));
  const allowDestructive = flags.includes('--allow-destructive');
  const known =
    ['up', 'down', 'status'].includes(command) &&
    flags.every((flag) => flag === '--allow-destructive') &&
    (!allowDestructive || command !== 'status');
  if (!known || args.filter((arg) => !arg.startsWith('--')).length > 1) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
  const logger = createLogger(config);
  const database = createDatabase(config, logger, storesOf(modules), { cleanupJob: false });
  logger.info({ engine: database.engine, database: database.description, allowDestructive }, `db-migrate ${command}`);
  await database.connect();
  try {
    if (!(database instanceof SqlDatabase)) {
      // MongoDB: "up" applies the document changes and creates the indexes; "down" reverts the last document
      // change (a rename), refusing one whose data is gone (a dropped field or collection).
      if (command === 'status') {
        process.stderr.write(
          'db-migrate status: not applicable to MongoDB (its document changes are listed in the schema_migrations collection)\n',
        );
        return 2;
      }
      if (command === 'up') await database.migrate({ allowDestructive });
      if (command === 'down') {
        const reverted = await (database as MongoDatabase).revertLast();
        logger.info({ reverted: reverted ? [reverted] : [] }, reverted ? 'migration reverted' : 'nothing to revert');
      }
      return 0;
    }
    if (command === 'up') await database.migrate({ allowDestructive });
    if (command === 'down') {
      const reverted = await database.withMigrationConnection((migrator) => migrator.down({ allowDestructive }));
      logger.info({ reverted }, reverted.length ? 'migration reverted' : 'nothing to revert');
    }
    if (command === 'status') {
      const { executed, pending } = await database.migrator().status();
      process.stdout.write(
        `${[...executed.map((name) => `applied  ${name}`), ...pending.map((name) => `pending  ${name}`)].join('\n')}\n`,
      );
    }
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`db-migrate failed: ${message}\n`);
    process.exit(1);
  },
);
