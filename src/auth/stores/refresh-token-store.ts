// Refresh-token records: table `refresh_tokens` on the relational engines, collection `refreshtokens` on
// MongoDB. Declared in ./definitions.ts, opened by the service on the configured engine.

/** A stored refresh token. `token` is the SHA-256 digest (hex) of the token, never the token itself. */
export interface RefreshTokenRecord {
  userId: string;
  token: string;
  expiresAt: Date;
  /**
   * The session the token belongs to: created at login, kept by every token rotated from it, so a reused
   * token can revoke all of them. Records from before families existed are a family of their own (their digest).
   */
  familyId: string;
  /** When a rotation replaced this token (REFRESH_ROTATION); null while it is the family's live token. */
  retiredAt: Date | null;
}

/** What `create` takes: a new, live record. Without a family the record starts one of its own. */
export type NewRefreshToken = Pick<RefreshTokenRecord, 'userId' | 'token' | 'expiresAt'> & { familyId?: string };

export interface RefreshTokenStore {
  /** The record with this digest, live or retired, or null; a record whose expiresAt has passed is never returned. */
  findByToken(token: string): Promise<RefreshTokenRecord | null>;
  /** Stores a new record; throws DuplicateKeyError when the digest exists already. */
  create(record: NewRefreshToken): Promise<void>;
  /** Deletes the record with this digest; deleting an unknown digest is a no-op. True when a record went. */
  deleteByToken(token: string): Promise<boolean>;
  /**
   * Marks a live record retired at `at`, atomically: of several calls racing on one token exactly one gets
   * true. False when the record is unknown or already retired.
   */
  retire(token: string, at: Date): Promise<boolean>;
  /**
   * Retires the live record `token` at `at` and stores its successor, atomically: both happen or neither.
   * False (and nothing stored) when the record is unknown or already retired, as for `retire`.
   */
  rotate(token: string, successor: NewRefreshToken & { familyId: string }, at: Date): Promise<boolean>;
  /**
   * Deletes every record of a session family (reuse detected, or logout); returns how many went. A successor
   * that a rotation racing with this call stores is deleted too.
   */
  deleteFamily(familyId: string): Promise<number>;
  /** Deletes every record of a user (logout everywhere, password change, user deleted); returns how many went. */
  deleteByUser(userId: string): Promise<number>;
}
