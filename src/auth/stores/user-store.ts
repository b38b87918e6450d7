import type { SortKey } from '../../stores/kit/list-query';
import type { ResourcePage } from '../../stores/kit/resource-store';
import { normaliseEmail } from './email';

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
  /**
   * Raised whenever every session of the user must end (logout everywhere, a password change or reset).
   * Access and refresh tokens carry the version they were issued under; one with an older version is
   * refused (src/auth/caller-states.ts, refresh), so ending sessions also ends the tokens already out.
   */
  sessionVersion: number;
  /**
   * The address is proven to belong to the user (EMAIL_VERIFICATION, docs/accounts.md). False for a
   * self-registered user until they follow the emailed link; users made by an administrator, and those that
   * existed before verification did, count as verified.
   */
  emailVerified: boolean;
}

/** A user to create: verified unless said otherwise (registration says otherwise). */
export type NewUser = Omit<UserRecord, 'id' | 'sessionVersion' | 'emailVerified'> & { emailVerified?: boolean };

/** The record a store writes for a new user under `id`: the address normalised, at the first session version. */
export function newUserRecord(user: NewUser, id: string): UserRecord {
  return {
    id,
    email: normaliseEmail(user.email),
    passwordHash: user.passwordHash,
    role: user.role,
    name: user.name ?? null,
    sessionVersion: 0,
    emailVerified: user.emailVerified ?? true,
  };
}

/** Why a role change or delete was refused: it would leave no administrator. */
export const LAST_ADMIN = 'last-admin';

/** With this, a change that would leave no user holding `role` is refused (LAST_ADMIN). */
export interface KeepRole {
  keepRole: string;
}

export interface UserStore {
  /** Case-insensitive: the email is normalised before the lookup. */
  findByEmail(email: string): Promise<UserRecord | null>;
  findById(id: string): Promise<UserRecord | null>;
  /** Throws DuplicateKeyError when the (normalised) email is taken. */
  create(user: NewUser): Promise<UserRecord>;
  /** Replaces the stored hash, e.g. after a rehash with stronger parameters. */
  updatePasswordHash(id: string, passwordHash: string): Promise<void>;
  /** Raises the user's session version (every access token issued before is void); false when there is no such user. */
  endSessions(id: string): Promise<boolean>;
  /**
   * Replaces the password hash and raises the session version in one statement: the new password and the
   * end of every earlier session happen together. The new version, or undefined when there is no such user.
   */
  changePassword(id: string, passwordHash: string): Promise<number | undefined>;
  /** Marks the address verified; false when there is no such user. */
  markEmailVerified(id: string): Promise<boolean>;
}

/** A page of the users directory: the window of the list (src/http/routing/list-window.ts). */
export interface UserListQuery {
  limit: number;
  offset: number;
  after?: readonly unknown[];
  countUpTo?: number;
}

/** A user as listed: the record and when it was created (the order, and the cursor's key). */
export type ListedUser = UserRecord & { createdAt: Date };

/** The directory's order: oldest first, then by id. */
export const USERS_ORDER: readonly SortKey[] = [{ field: 'createdAt', descending: false }];

/** What administrators do with users (the users module's admin routes, `user:set-role`): database users only. */
export interface UserDirectory {
  /**
   * Oldest first (then by id), a page at a time: by offset or after a cursor's (createdAt, id), each page a
   * range of the (created_at, id) index; the total only when asked (`countUpTo`).
   */
  list(query: UserListQuery): Promise<ResourcePage<ListedUser>>;
  /**
   * The updated user, null when there is no such user, LAST_ADMIN when `guard` is given and the change
   * would leave nobody in its role. Access tokens issued under the old role stop working (their role no
   * longer matches, caller-states.ts); the user's refresh tokens go on and carry the new role.
   * The guard is one conditional statement on the relational engines.
   */
  updateRole(id: string, role: string, guard?: KeepRole): Promise<UserRecord | null | typeof LAST_ADMIN>;
  /** True when a user went; LAST_ADMIN as for updateRole. Their refresh tokens are the caller's to revoke (a separate store). */
  delete(id: string, guard?: KeepRole): Promise<boolean | typeof LAST_ADMIN>;
}

/** The users table/collection: what login needs and what administrators need. */
export type DatabaseUserStore = UserStore & UserDirectory;
