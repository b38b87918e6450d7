// Refresh-token records: table `refresh_tokens` on the relational engines, collection `refreshtokens` on
// MongoDB. Declared in ./definitions.ts, opened by the service on the configured engine.

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
