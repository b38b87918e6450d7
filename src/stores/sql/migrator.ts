import type { Sequelize } from 'sequelize';
import type { Logger } from '../../logger';
import type { SqlEngine } from './connection-options';
import { DestructiveMigrationError } from '../errors';
import { withMigrationLock } from './migration-lock';
import { MigrationRunner } from './migration-runner';
import { dataAtRisk } from './migrations/destructive';
import { MIGRATIONS_TABLE, type SqlMigration } from './migrations/migration';

/** Engines whose DDL is transactional: each migration there runs in a transaction, all or nothing. */
const TRANSACTIONAL_DDL: ReadonlySet<SqlEngine> = new Set(['postgres', 'mssql']);

/**
 * Runs one migration step in a transaction where the engine's DDL is transactional, so a step that fails
 * half-way leaves nothing behind and can simply run again. BEGIN/COMMIT as statements: the migration's own
 * calls take no transaction option, and the migration connection's pool gives them one connection besides
 * the lock's (see SqlDatabase.migrate), so every statement of the step shares the session.
 */
async function inTransaction(sequelize: Sequelize, engine: SqlEngine, step: () => Promise<void>): Promise<void> {
  if (!TRANSACTIONAL_DDL.has(engine)) return step();
  await sequelize.query(engine === 'mssql' ? 'BEGIN TRANSACTION' : 'BEGIN');
  try {
    await step();
  } catch (error) {
    await sequelize
      .query(engine === 'mssql' ? 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION' : 'ROLLBACK')
      .catch(() => undefined);
    throw error;
  }
  await sequelize.query(engine === 'mssql' ? 'COMMIT TRANSACTION' : 'COMMIT');
}

function createRunner(
  sequelize: Sequelize,
  engine: SqlEngine,
  migrations: readonly SqlMigration[],
  logger: Logger,
): MigrationRunner {
  return new MigrationRunner(
    sequelize,
    MIGRATIONS_TABLE,
    migrations.map((migration) => ({
      name: migration.name,
      up: (context) =>
        migration.transaction === false
          ? migration.up(context)
          : inTransaction(sequelize, engine, () => migration.up(context)),
      down: (context) =>
        migration.transaction === false
          ? migration.down(context)
          : inTransaction(sequelize, engine, () => migration.down(context)),
    })),
    (event) => logger.info(event, 'migration'),
  );
}

export interface MigrationStatus {
  executed: string[];
  pending: string[];
}

/** The registered stores' versioned migrations (migration-runner.ts) under a database lock; every step is its own short operation. */
export class Migrator {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly engine: SqlEngine,
    /** Every registered store's migrations, in order (see migrationsOf). */
    readonly migrations: readonly SqlMigration[],
    private readonly logger: Logger,
    /** How long an instance waits for another one that is migrating. */
    private readonly lockWaitMs: number,
  ) {}

  /**
   * Applies every pending migration (or the next `step` ones); returns the names applied (none when up to
   * date). Unless `allowDestructive`, applies none while one of them would destroy data here
   * (DestructiveMigrationError, naming them).
   */
  up(step?: number, options: { allowDestructive?: boolean } = {}): Promise<string[]> {
    return withMigrationLock(this.sequelize, this.engine, this.lockWaitMs, async () => {
      const runner = createRunner(this.sequelize, this.engine, this.migrations, this.logger);
      if (!options.allowDestructive)
        await this.refuseDestructive((await runner.pending()).slice(0, step).map((migration) => migration.name));
      const applied = await runner.up(step);
      return applied.map((migration) => migration.name);
    });
  }

  private async refuseDestructive(pending: readonly string[]): Promise<void> {
    const refused: { migration: string; holds: string[] }[] = [];
    for (const migration of this.migrations.filter(
      (candidate) => candidate.destroys && pending.includes(candidate.name),
    )) {
      const holds = await dataAtRisk(this.sequelize.getQueryInterface(), migration.destroys!);
      if (holds.length > 0) refused.push({ migration: migration.name, holds });
    }
    if (refused.length > 0) throw new DestructiveMigrationError(refused);
  }

  /**
   * Reverts the last applied migration; returns its name, if any. Unless `allowDestructive`, refuses one whose
   * down would destroy data here (DestructiveMigrationError). A down cannot bring back the values its up
   * destroyed: the log says so before it runs.
   */
  down(options: { allowDestructive?: boolean } = {}): Promise<string[]> {
    return withMigrationLock(this.sequelize, this.engine, this.lockWaitMs, async () => {
      const runner = createRunner(this.sequelize, this.engine, this.migrations, this.logger);
      const [last] = (await runner.executed()).slice(-1);
      const migration = this.migrations.find((candidate) => candidate.name === last?.name);
      if (migration?.downDestroys && !options.allowDestructive) {
        const holds = await dataAtRisk(this.sequelize.getQueryInterface(), migration.downDestroys);
        if (holds.length > 0) throw new DestructiveMigrationError([{ migration: migration.name, holds }], 'down');
      }
      if (migration?.destroys)
        this.logger.warn(
          { migration: migration.name, lost: migration.destroys },
          'the revert brings back what this migration dropped, empty: the values it destroyed do not come back',
        );
      const reverted = await runner.down();
      return reverted.map((reverting) => reverting.name);
    });
  }

  status(): Promise<MigrationStatus> {
    return withMigrationLock(this.sequelize, this.engine, this.lockWaitMs, async () => {
      const runner = createRunner(this.sequelize, this.engine, this.migrations, this.logger);
      const [executed, pending] = await Promise.all([runner.executed(), runner.pending()]);
      return { executed: executed.map((m) => m.name), pending: pending.map((m) => m.name) };
    });
  }
}
