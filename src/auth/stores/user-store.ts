import type { Page, PageRequest } from '../../stores/kit/pagination';

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

/** What administrators do with users (the users module's admin routes, `user:set-role`): database users only. */
export interface UserDirectory {
  /** Oldest first (then by id), with the total. */
  list(page: PageRequest): Promise<Page<UserRecord>>;
  /** The updated user, or null when there is no such user. */
  updateRole(id: string, role: string): Promise<UserRecord | null>;
  /** True when a user went. Their refresh tokens are the caller's to revoke (a separate store). */
  delete(id: string): Promise<boolean>;
}

/** The users table/collection: what login needs and what administrators need. */
export type DatabaseUserStore = UserStore & UserDirectory;
