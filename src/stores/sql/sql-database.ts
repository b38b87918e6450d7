import { DataTypes, QueryTypes, Sequelize, type QueryInterface, type Transaction } from 'sequelize';
import type { Logger } from '../../logger';
import { ExpiredRecordCleanup } from '../cleanup-job';
import { SearchRepairJob } from '../search-repair-job';
import { repairSearchShadows } from './migrations/search-repairs';
import { connectWithRetry } from '../connect-retry';
import { guarded } from '../guard';
import type { SqlStoreContext, StoreDefinition } from '../kit/definition';
import { inDependencyOrder, migrationsOf, OpenedStores, type AnyStoreDefinition } from '../kit/registry';
import { SchemaDriftError } from '../errors';
import type { Database, MigrateOptions, PoolStats } from '../types';
import { sqlConnectionSettings, type SqlEngine } from './connection-options';
import type { Migrator } from './migrator';
import type * as MigratorModule from './migrator';
import { MIGRATIONS_TABLE, type SqlMigration } from './migrations/migration';
import { DirectReads } from './direct-reads';
import { DriverStatements } from './driver-statements';
import { translateSqlError } from './sql-errors';
import { SqliteStatementBudget } from './statement-budget';
import { useWriteAheadLog } from './sqlite-journal';

export interface SqlDatabaseOptions {
  url: string;
  engine: SqlEngine;
  timeoutMs: number;
  /**
   * The deadline of a migration statement (MIGRATION_TIMEOUT): migrations run on a connection of their own,
   * not under the request deadline, so filling a column of a large table is not cut off after seconds.
   */
  migrationTimeoutMs: number;
  /** 0 disables the in-process cleanup job (the db:migrate CLI, tests that drive it themselves). */
  cleanupIntervalMs: number;
  connectAttempts: number;
  /** The stores to open here; their migrations make up the schema. */
  stores: readonly AnyStoreDefinition[];
}

/** SQLite, PostgreSQL, MySQL/MariaDB or SQL Server through Sequelize. */
export class SqlDatabase implements Database {
  readonly engine: SqlEngine;
  readonly description: string;
  readonly sequelize: Sequelize;
  /** Every registered store's migrations, in order (see migrationsOf). */
  readonly migrations: readonly SqlMigration[];
  private readonly stores: OpenedStores;
  private readonly expiryTasks: (() => Promise<number>)[] = [];
  private readonly cleanup: ExpiredRecordCleanup | undefined;
  /** The passes of the open search-shadow repairs (with the cleanup: not in the CLI, nor where tests drive them). */
  private readonly searchRepair: SearchRepairJob | undefined;
  private readonly driverStatements: DriverStatements;
  private readonly directReads: DirectReads;
  /** SQLite only: the interrupt of a statement past DATABASE_TIMEOUT. */
  private readonly sqliteBudget: SqliteStatementBudget | undefined;
  /** A SQLite file (not `:memory:`): put in write-ahead-log mode on connecting. */
  private readonly sqliteFile: boolean;

  constructor(
    private readonly options: SqlDatabaseOptions,
    private readonly logger: Logger,
  ) {
    const settings = sqlConnectionSettings(options.url, options.engine, options.timeoutMs, logger);
    this.engine = options.engine;
    this.description = settings.description;
    this.sqliteFile = options.engine === 'sqlite' && !settings.inMemory;
    this.sqliteBudget = options.engine === 'sqlite' ? new SqliteStatementBudget(options.timeoutMs) : undefined;
    this.sequelize = new Sequelize(
      this.sqliteBudget ? { ...settings.options, hooks: this.sqliteBudget.hooks() } : settings.options,
    );
    this.driverStatements = new DriverStatements(this.sequelize, options.engine);
    this.directReads = new DirectReads(this.driverStatements);
    const context: SqlStoreContext = {
      sequelize: this.sequelize,
      DataTypes,
      engine: options.engine,
      timeoutMs: options.timeoutMs,
      run: (operation) => guarded(operation, options.timeoutMs, translateSqlError),
      transaction: (work) => this.transaction(work),
      selectByKey: (read, key) => this.directReads.selectByKey(read, key),
      execute: (sql, params) => this.driverStatements.execute(sql, params),
      removeExpiredPeriodically: (task) => void this.expiryTasks.push(task),
    };
    this.stores = new OpenedStores(options.stores, (definition) => definition.relational(context));
    // Waiting for another instance's migrations: generous, they are a few short DDL statements.
    this.migrations = migrationsOf(options.stores);
    this.cleanup =
      options.cleanupIntervalMs > 0 && this.expiryTasks.length > 0
        ? new ExpiredRecordCleanup(() => this.removeExpired(), logger, options.cleanupIntervalMs)
        : undefined;
    this.searchRepair =
      options.cleanupIntervalMs > 0
        ? new SearchRepairJob(() => repairSearchShadows(this.sequelize.getQueryInterface()), logger)
        : undefined;
  }

  /** The last SQLite transaction of this process: the next one starts after it settles. */
  private sqliteTurn: Promise<unknown> = Promise.resolve();

  private transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    if (this.engine !== 'sqlite') return this.sequelize.transaction(work);
    const turn = this.sqliteTurn.then(() => this.sequelize.transaction(work));
    this.sqliteTurn = turn.catch(() => undefined);
    return turn;
  }

  store<Store>(definition: StoreDefinition<Store>): Store {
    return this.stores.get(definition);
  }

  /** One pass of every store's expiry task; resolves with the rows removed in all. */
  async removeExpired(): Promise<number> {
    let removed = 0;
    for (const task of this.expiryTasks) removed += await task();
    return removed;
  }

  async connect(): Promise<void> {
    await connectWithRetry(() => this.ping(), this.description, this.logger, {
      attempts: this.options.connectAttempts,
    });
    if (this.sqliteFile) await useWriteAheadLog(this.sequelize, this.logger);
    this.cleanup?.start();
    this.searchRepair?.start();
  }

  async migrate(options: MigrateOptions = {}): Promise<void> {
    if (await this.upToDate()) {
      this.logger.info({ applied: [] }, 'database schema up to date');
      return;
    }
    const applied = await this.withMigrationConnection((migrator) => migrator.up(undefined, options));
    this.logger.info({ applied }, applied.length ? 'database migrations applied' : 'database schema up to date');
    if (applied.length > 0) this.searchRepair?.start(0); // one may have opened a repair
  }

  /**
   * True when `schema_migrations` lists every registered migration: one SELECT, and the migration tooling
   * (migrator.ts and what it loads) is never loaded by a service whose schema is current. Anything else (no table yet, a
   * pending migration, an error) goes through the migrator, under the lock.
   */
  private async upToDate(): Promise<boolean> {
    try {
      const q = (name: string) => this.sequelize.getQueryInterface().quoteIdentifier(name);
      const rows = await this.sequelize.query<{ name: string }>(
        `SELECT ${q('name')} AS ${q('name')} FROM ${q(MIGRATIONS_TABLE)}`,
        {
          type: QueryTypes.SELECT,
          logging: false,
        },
      );
      const applied = new Set(rows.map((row) => row.name));
      return this.migrations.every((migration) => applied.has(migration.name));
    } catch {
      return false;
    }
  }

  /** A migrator (loaded now) on the given connection. */
  migrator(sequelize: Sequelize = this.sequelize): Migrator {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when a migration may run
    const { Migrator: MigratorClass } = require('./migrator') as typeof MigratorModule;
    return new MigratorClass(
      sequelize,
      this.engine,
      this.migrations,
      this.logger,
      Math.max(60_000, this.options.timeoutMs * 6),
    );
  }

  /**
   * A migrator on a connection of its own, with MIGRATION_TIMEOUT as every deadline, closed afterwards. Two
   * connections at most: one holds the migration lock, the other runs each migration's statements (so a
   * transactional step's BEGIN and COMMIT share a session). SQLite runs them without the statement budget, and an
   * in-memory database exists only on its one connection: it migrates on the service's own.
   */
  async withMigrationConnection<T>(work: (migrator: Migrator) => Promise<T>): Promise<T> {
    if (this.sqliteBudget) return this.sqliteBudget.unbudgeted(() => work(this.migrator()));
    const { url, engine, migrationTimeoutMs } = this.options;
    const settings = sqlConnectionSettings(url, engine, migrationTimeoutMs, this.logger);
    const sequelize = new Sequelize({
      ...settings.options,
      pool: { max: 2, min: 0, acquire: migrationTimeoutMs, idle: 10_000 },
    });
    try {
      return await work(this.migrator(sequelize));
    } finally {
      await sequelize.close();
    }
  }

  /** The schema's tools on the service's connection (start-up checks, generators). */
  queryInterface(): QueryInterface {
    return this.sequelize.getQueryInterface();
  }

  async checkSchema(): Promise<void> {
    const queryInterface = this.queryInterface();
    const problems: string[] = [];
    for (const definition of inDependencyOrder(this.options.stores))
      problems.push(...((await definition.checkRelational?.(queryInterface)) ?? []));
    if (problems.length > 0) throw new SchemaDriftError(problems);
  }

  ping(): Promise<void> {
    return guarded(() => this.sequelize.authenticate({ logging: false }), this.options.timeoutMs, translateSqlError);
  }

  poolStats(): PoolStats | undefined {
    // Sequelize keeps a sequelize-pool Pool for the networked engines; SQLite has no pool.
    const pool = (
      this.sequelize.connectionManager as unknown as {
        pool?: Partial<Record<'using' | 'available' | 'waiting', number>>;
      }
    ).pool;
    if (this.engine === 'sqlite' || typeof pool?.using !== 'number') return undefined;
    return { used: pool.using, idle: pool.available ?? 0, pending: pool.waiting ?? 0 };
  }

  async close(): Promise<void> {
    await this.cleanup?.stop();
    await this.searchRepair?.stop();
    await this.driverStatements.close();
    await this.sequelize.close();
  }
}
