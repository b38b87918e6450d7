import { Sequelize } from 'sequelize';
import type { Logger } from '../../logger';
import { ExpiredTokenCleanup } from '../cleanup-job';
import { connectWithRetry } from '../connect-retry';
import { guarded } from '../guard';
import type { Database, PoolStats } from '../types';
import { sqlConnectionSettings, type SqlEngine } from './connection-options';
import { Migrator } from './migrator';
import { defineModels } from './models';
import { translateSqlError } from './sql-errors';
import { SqlRefreshTokenStore } from './sql-refresh-token-store';
import { SqlUserStore } from './sql-user-store';

export interface SqlDatabaseOptions {
  url: string;
  engine: SqlEngine;
  timeoutMs: number;
  /** 0 disables the in-process cleanup job (the db:migrate CLI, tests that drive it themselves). */
  cleanupIntervalMs: number;
  connectAttempts: number;
}

/** SQLite, PostgreSQL, MySQL/MariaDB or SQL Server through Sequelize. */
export class SqlDatabase implements Database {
  readonly engine: SqlEngine;
  readonly description: string;
  readonly refreshTokens: SqlRefreshTokenStore;
  readonly users: SqlUserStore;
  readonly sequelize: Sequelize;
  readonly migrator: Migrator;
  private readonly cleanup: ExpiredTokenCleanup | undefined;

  constructor(
    private readonly options: SqlDatabaseOptions,
    private readonly logger: Logger,
  ) {
    const settings = sqlConnectionSettings(options.url, options.engine, options.timeoutMs, logger);
    this.engine = options.engine;
    this.description = settings.description;
    this.sequelize = new Sequelize(settings.options);
    const models = defineModels(this.sequelize);
    this.refreshTokens = new SqlRefreshTokenStore(models.RefreshToken, options.timeoutMs);
    this.users = new SqlUserStore(models.User, options.timeoutMs);
    // Waiting for another instance's migrations: generous, they are a few short DDL statements.
    this.migrator = new Migrator(this.sequelize, options.engine, logger, Math.max(60_000, options.timeoutMs * 6));
    this.cleanup =
      options.cleanupIntervalMs > 0
        ? new ExpiredTokenCleanup(() => this.refreshTokens.deleteExpired(), logger, options.cleanupIntervalMs)
        : undefined;
  }

  async connect(): Promise<void> {
    await connectWithRetry(() => this.ping(), this.description, this.logger, { attempts: this.options.connectAttempts });
    this.cleanup?.start();
  }

  async migrate(): Promise<void> {
    const applied = await this.migrator.up();
    this.logger.info({ applied }, applied.length ? 'database migrations applied' : 'database schema up to date');
  }

  ping(): Promise<void> {
    return guarded(() => this.sequelize.authenticate({ logging: false }), this.options.timeoutMs, translateSqlError);
  }

  poolStats(): PoolStats | undefined {
    // Sequelize keeps a sequelize-pool Pool for the networked engines; SQLite has no pool.
    const pool = (this.sequelize.connectionManager as unknown as { pool?: Partial<Record<'using' | 'available' | 'waiting', number>> }).pool;
    if (this.engine === 'sqlite' || typeof pool?.using !== 'number') return undefined;
    return { used: pool.using, idle: pool.available ?? 0, pending: pool.waiting ?? 0 };
  }

  async close(): Promise<void> {
    await this.cleanup?.stop();
    await this.sequelize.close();
  }
}
