// The users of USER_STORE=database: table `users` on the relational engines, collection `users` on
// MongoDB. Declared in ./definitions.ts, opened by the service on the configured engine.

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
