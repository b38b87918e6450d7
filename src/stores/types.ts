import type { DatabaseEngine } from '../config/config';

// What the rest of the service knows about persistence. Handlers depend on these interfaces only;
// each engine (src/stores/<engine>/) implements them with the same behaviour.

/** A stored refresh token. `token` is the SHA-256 digest (hex) of the token, never the token itself. */
export interface RefreshTokenRecord {
  userId: string;
  token: string;
  expiresAt: Date;
}

export interface RefreshTokenStore {
  /** The record with this digest, or null; a record whose expiresAt has passed is never returned. */
  findByToken(token: string): Promise<RefreshTokenRecord | null>;
  /** Stores a new record; throws DuplicateKeyError when the digest exists already. */
  create(record: RefreshTokenRecord): Promise<void>;
  /** Deletes the record with this digest; deleting an unknown digest is a no-op. True when a record went. */
  deleteByToken(token: string): Promise<boolean>;
}

export interface UserRecord {
  id: string;
  /** Normalised: trimmed and lower-cased. */
  email: string;
  /** A slow salted hash (argon2id), never the password. */
  passwordHash: string;
  role: string;
  name: string | null;
}

export type NewUser = Omit<UserRecord, 'id'>;

export interface UserStore {
  /** Case-insensitive: the email is normalised before the lookup. */
  findByEmail(email: string): Promise<UserRecord | null>;
  findById(id: string): Promise<UserRecord | null>;
  /** Throws DuplicateKeyError when the (normalised) email is taken. */
  create(user: NewUser): Promise<UserRecord>;
  /** Replaces the stored hash, e.g. after a rehash with stronger parameters. */
  updatePasswordHash(id: string, passwordHash: string): Promise<void>;
}

/** One configured database: its lifecycle and the stores on it. */
export interface Database {
  readonly engine: DatabaseEngine;
  /** Where it is, for the start-up log line: engine and host, never a password. */
  readonly description: string;
  readonly refreshTokens: RefreshTokenStore;
  readonly users: UserStore;
  connect(): Promise<void>;
  /** Brings the schema up to date (relational: versioned migrations; MongoDB: indexes). */
  migrate(): Promise<void>;
  /** Resolves when the database answers; throws StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Connections in the driver's pool, where it reports them (the pooled SQL engines); undefined otherwise. */
  poolStats?(): PoolStats | undefined;
}

export interface PoolStats {
  used: number;
  idle: number;
  /** Callers waiting for a connection. */
  pending: number;
}
