import type { DatabaseEngine } from '../config/config';
import type { StoreDefinition } from './kit/definition';

// What the rest of the service knows about persistence: one configured database, and the stores the
// modules declared (src/stores/kit/definition.ts) opened on it. Each engine family (src/stores/sql/,
// src/stores/mongo/) gives every store the same behaviour.

/** One configured database: its lifecycle and the stores opened on it. */
export interface Database {
  readonly engine: DatabaseEngine;
  /** Where it is, for the start-up log line: engine and host, never a password. */
  readonly description: string;
  /** The store for this definition, on this database's engine; throws if the definition was not registered. */
  store<Store>(definition: StoreDefinition<Store>): Store;
  connect(): Promise<void>;
  /**
   * Brings every registered store's schema up to date (relational: versioned migrations; MongoDB: document
   * changes and indexes). Refuses (DestructiveMigrationError) pending migrations that would destroy data
   * unless `allowDestructive` (the db:migrate command's `--allow-destructive`).
   */
  migrate(options?: MigrateOptions): Promise<void>;
  /**
   * Refuses (throws SchemaDriftError) a schema that lacks what the registered stores need, such as a list
   * index a resource's declaration asks for: run at every start, after migrating (when that is on).
   */
  checkSchema(): Promise<void>;
  /** Resolves when the database answers; throws StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Connections in the driver's pool, where it reports them (the pooled SQL engines); undefined otherwise. */
  poolStats?(): PoolStats | undefined;
}

export interface MigrateOptions {
  /** Run migrations that drop tables, collections or fields holding data (an operator's deliberate step, after a backup). */
  allowDestructive?: boolean;
}

export interface PoolStats {
  used: number;
  idle: number;
  /** Callers waiting for a connection. */
  pending: number;
}
