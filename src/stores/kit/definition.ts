import type { Connection, Schema, SchemaDefinition, SchemaOptions } from 'mongoose';
import type { DataTypes, QueryInterface, Sequelize, Transaction } from 'sequelize';
import type { SqlEngine } from '../sql/connection-options';
import type { KeyedRead } from '../sql/direct-reads';
import type { SqlMigration } from '../sql/migrations/migration';

// A store is declared once, by the module that owns it, with one implementation for the relational engines
// and one for MongoDB. The service opens the configured engine's implementation; the module only ever sees
// its own store interface. Type-only imports here: nothing in this file loads a driver.

/** What a relational implementation is given: the connection and the shared guard. */
export interface SqlStoreContext {
  readonly sequelize: Sequelize;
  /** Sequelize's data types, for a store's model: from here, so that declaring a store loads no Sequelize. */
  readonly DataTypes: typeof DataTypes;
  readonly engine: SqlEngine;
  readonly timeoutMs: number;
  /** Runs one operation under the store deadline; outages become StoreUnavailableError (503), duplicates DuplicateKeyError (409). */
  run<T>(operation: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` in one transaction (pass `{ transaction }` to each statement): committed when it resolves,
   * rolled back when it throws. On SQLite, whose one connection cannot hold two transactions at once,
   * transactions of this process take turns. Call it inside `run`, which bounds the whole.
   */
  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T>;
  /**
   * The row (or null) whose key column holds `key`, for a hot-path lookup: through the driver with the
   * statement prepared once instead of Sequelize's query pipeline, and on SQLite taken together with the
   * lookups that arrive while one runs (src/stores/sql/direct-reads.ts). The row as the driver gives it (dates
   * may be text on SQLite). Call it inside `run`.
   */
  selectByKey<Row>(read: KeyedRead, key: string): Promise<Row | null>;
  /**
   * Runs one statement that returns nothing (a hot path's one-row INSERT), written with `?` placeholders,
   * through the driver with the statement prepared once (src/stores/sql/driver-statements.ts); a Date is
   * written as Sequelize writes it. Outside any transaction. Call it inside `run`.
   */
  execute(sql: string, params: readonly (string | number | Date | null)[]): Promise<void>;
  /**
   * Registers a periodic clean-up (e.g. deleting expired rows) for the in-process job; it returns the number
   * of rows removed. MongoDB does the same with TTL indexes.
   */
  removeExpiredPeriodically(task: () => Promise<number>): void;
}

/** What a MongoDB implementation is given. mongoose itself is loaded only on MongoDB, so it comes from here. */
export interface MongoStoreContext {
  readonly connection: Connection;
  readonly timeoutMs: number;
  /** mongoose's Schema class, for a schema the helpers below do not fit. */
  readonly Schema: typeof Schema;
  /** As SqlStoreContext.run, for the MongoDB driver's errors. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  /**
   * A schema for a collection of records: a UUIDv7 string `_id` (like the relational ids), `createdAt` and
   * `updatedAt` kept by mongoose, no version key. Declare indexes on it with `schema.index(...)`: every
   * index of every model on the connection is built by `migrate()`.
   */
  recordSchema(fields: SchemaDefinition, options?: SchemaOptions): Schema;
  /** A record schema plus the owner: a required `ownerId` and an index on (ownerId, createdAt) for the owner's list. */
  ownedRecordSchema(fields: SchemaDefinition, options?: SchemaOptions): Schema;
}

export interface StoreDefinition<Store> {
  /** Unique among the service's stores; names the store in messages. */
  readonly name: string;
  /**
   * The relational schema of this store, oldest first. Names must be unique across the service and are
   * recorded in `schema_migrations`: never rename or edit an applied one, add a new one instead.
   */
  readonly migrations: readonly SqlMigration[];
  /**
   * Stores whose tables this one's point at (foreign keys): their migrations run first, and they are opened
   * whenever this one is.
   */
  readonly dependsOn?: readonly StoreDefinition<unknown>[];
  /**
   * What the relational schema lacks that this store needs (after migrating, at every start): each problem
   * in words an operator can act on. A non-empty answer stops start-up.
   */
  checkRelational?(queryInterface: QueryInterface): Promise<string[]>;
  /** Builds the store on SQLite, PostgreSQL, MySQL/MariaDB or SQL Server. */
  relational(context: SqlStoreContext): Store;
  /** Builds the store on MongoDB; defines its models on `context.connection`. */
  mongodb(context: MongoStoreContext): Store;
}

/** Identity helper that ties both implementations to the store interface. */
export function defineStore<Store>(definition: StoreDefinition<Store>): StoreDefinition<Store> {
  return definition;
}
