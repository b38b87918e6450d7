import mongoose, { type Connection } from 'mongoose';
import type { Logger } from '../../logger';
import { connectWithRetry } from '../connect-retry';
import { describeLocation } from '../describe-location';
import { StoreUnavailableError } from '../errors';
import { guarded } from '../guard';
import type { MongoStoreContext, StoreDefinition } from '../kit/definition';
import { migrationsOf, OpenedStores, type AnyStoreDefinition } from '../kit/registry';
import { applyDocumentChanges, revertLastDocumentChange } from './document-migrations';
import type { Database, MigrateOptions } from '../types';
import { applyValidators, refuseValidatorDrift } from './collection-validator';
import { findMissingIndexes } from './index-check';
import { translateMongoError } from './mongo-errors';
import { ownedRecordSchema, recordSchema } from './record-schema';
import { SearchRepairJob } from '../search-repair-job';
import { repairDocumentSearchShadows } from './search-repairs';

export interface MongoDatabaseOptions {
  url: string;
  timeoutMs: number;
  /** The deadline of migrate() and of a revert (MIGRATION_TIMEOUT): a fill of a large collection is not cut off after seconds. */
  migrationTimeoutMs?: number;
  connectAttempts: number;
  /** The stores to open here; the indexes their models declare are built by migrate(). */
  stores: readonly AnyStoreDefinition[];
  /** false: no in-process passes of the search-shadow repairs (the db:migrate CLI, tests that drive them). */
  repairJob?: boolean;
}

/** MongoDB through mongoose: each registered store defines its models (collections) on one connection. */
export class MongoDatabase implements Database {
  readonly engine = 'mongodb' as const;
  readonly description: string;
  readonly connection: Connection;
  private readonly stores: OpenedStores;

  constructor(
    private readonly options: MongoDatabaseOptions,
    private readonly logger: Logger,
  ) {
    this.description = `mongodb ${describeLocation(options.url).replace(/^mongodb(\+srv)?:\/\//, '')}`;
    // One connection object per database (not mongoose's global one), opened by connect().
    this.connection = mongoose.createConnection();
    const context: MongoStoreContext = {
      connection: this.connection,
      timeoutMs: options.timeoutMs,
      Schema: mongoose.Schema,
      run: (operation) => guarded(operation, options.timeoutMs, translateMongoError),
      recordSchema: (fields, schemaOptions) => recordSchema(mongoose.Schema, fields, schemaOptions),
      ownedRecordSchema: (fields, schemaOptions) => ownedRecordSchema(mongoose.Schema, fields, schemaOptions),
    };
    this.stores = new OpenedStores(options.stores, (definition) => definition.mongodb(context));
    this.searchRepair =
      options.repairJob === false
        ? undefined
        : new SearchRepairJob(() => repairDocumentSearchShadows(this.connection.db!), logger);
  }

  /** The passes of the open search-shadow repairs (search-repairs.ts). */
  private readonly searchRepair: SearchRepairJob | undefined;

  store<Store>(definition: StoreDefinition<Store>): Store {
    return this.stores.get(definition);
  }

  async connect(): Promise<void> {
    const { url, timeoutMs, connectAttempts } = this.options;
    await connectWithRetry(
      async () => {
        await this.connection.openUri(url, {
          // Fail fast instead of queueing: with no server to select, an operation errors after timeoutMs.
          serverSelectionTimeoutMS: timeoutMs,
          connectTimeoutMS: timeoutMs,
          // A socket that stops answering mid-operation is dropped (the pool reconnects on the next use).
          socketTimeoutMS: timeoutMs * 2,
          maxPoolSize: 10,
          // No mongoose-side buffering: the driver's server selection (above) bounds waiting instead.
          bufferCommands: false,
          // Indexes and collections are created by migrate(), not as a side effect of first use.
          autoIndex: false,
          autoCreate: false,
        });
      },
      this.description,
      this.logger,
      { attempts: connectAttempts },
    );
    this.searchRepair?.start();
  }

  private get migrationDeadlineMs(): number {
    return Math.max(this.options.timeoutMs, this.options.migrationTimeoutMs ?? 0, 30_000);
  }

  /**
   * Creates every index every registered model declares (idempotent), collection by collection: what a
   * store declares is what gets built, with no list to keep in step. indexesMissing() checks the result.
   * Fields renamed or removed by the stores' migrations are moved first, under a lock, each change once
   * (document-migrations.ts); one that would destroy data waits for `allowDestructive`. Then each collection is
   * given its fields' rules as a validator (collection-validator.ts).
   */
  async migrate(options: MigrateOptions = {}): Promise<void> {
    await guarded(
      async () => {
        const changed = await applyDocumentChanges(this.connection, migrationsOf(this.options.stores), {
          allowDestructive: options.allowDestructive,
        });
        if (changed.length > 0) this.logger.info({ applied: changed }, 'mongodb document migrations applied');
        await applyValidators(this.connection);
        for (const model of Object.values(this.connection.models)) await model.createIndexes();
      },
      this.migrationDeadlineMs,
      translateMongoError,
    );
    this.logger.info('mongodb indexes ensured');
    this.searchRepair?.start(0); // a document change may have opened a repair
  }

  /** Reverts the last recorded document change (`db:migrate -- down`); its name, or undefined when none is recorded. */
  revertLast(): Promise<string | undefined> {
    return guarded(
      () => revertLastDocumentChange(this.connection, migrationsOf(this.options.stores)),
      this.migrationDeadlineMs,
      translateMongoError,
    );
  }

  /**
   * The collections' validators against the fields' rules (collection-validator.ts). The indexes need no
   * comparison here: every one, the list indexes included, is declared by the models and built by migrate().
   */
  checkSchema(): Promise<void> {
    return guarded(
      () => refuseValidatorDrift(this.connection),
      Math.max(this.options.timeoutMs, 30_000),
      translateMongoError,
    );
  }

  /** Declared indexes the server does not have (empty after a successful migrate()). */
  indexesMissing(): ReturnType<typeof findMissingIndexes> {
    return guarded(
      () => findMissingIndexes(this.connection),
      Math.max(this.options.timeoutMs, 30_000),
      translateMongoError,
    );
  }

  ping(): Promise<void> {
    return guarded(
      async () => {
        const db = this.connection.db;
        if (!db) throw new StoreUnavailableError('MongoDB is not connected');
        await db.admin().ping({ maxTimeMS: this.options.timeoutMs });
      },
      this.options.timeoutMs,
      translateMongoError,
    );
  }

  async close(): Promise<void> {
    await this.searchRepair?.stop();
    await this.connection.close();
  }
}
