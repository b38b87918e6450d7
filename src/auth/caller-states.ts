import type { AccessClaims, AuthUser } from './tokens';
import type { UserStore } from './stores/user-store';

/** What authorisation needs of a user now: their role, the session version their tokens must carry, whether the address is verified. */
export interface CallerState {
  role: string;
  sessionVersion: number;
  emailVerified: boolean;
}

export interface CallerStateSettings {
  /** AUTH_STATE_CACHE_TTL: how long a user's state read from the store serves other requests (0: never). */
  ttlMs: number;
  /** At most this many users are cached; past it the oldest entry goes. */
  maxEntries: number;
  /** EMAIL_VERIFICATION=required: sessions of users whose address is not verified do not authenticate (those opened before the switch too). */
  verificationRequired?: boolean;
}

/** Why a valid token does not authenticate its caller any more. */
export type CallerRefusal = 'user-gone' | 'session-ended' | 'role-changed' | 'unverified';

/**
 * Authorisation against the user as stored now, not as the access token remembers them (docs/decisions/
 * 009): a token authenticates only while its user exists and its session version is the user's current
 * one; the role a route checks is the stored role. So a deleted user's tokens stop working, a demoted
 * admin is no longer an admin, and logout-all, a password change or a role change void the access tokens
 * already out; a role change voids the access tokens issued under the old role.
 *
 * Reads go through a small cache, so an authenticated route does not cost a store read per request:
 * an entry serves for `ttlMs`, and this process drops it at once when it changes the user (`forget`).
 * Other replicas see a change within `ttlMs`. Role-restricted routes read the store every time (`fresh`):
 * the role is what they decide on, and a demotion must bind on every replica at once.
 */
export class CallerStates {
  private readonly cache = new Map<string, { state: Promise<CallerState | null>; until: number }>();

  constructor(
    private readonly users: Pick<UserStore, 'findById'>,
    private readonly settings: CallerStateSettings,
  ) {}

  /** The caller for these (verified) claims, with their current role; or why they are refused. */
  async authenticate(claims: AccessClaims, fresh = false): Promise<AuthUser | CallerRefusal> {
    const state = await (fresh ? this.read(claims.id) : this.cached(claims.id));
    const refusal = this.refusal(state, claims.sessionVersion);
    if (refusal || !state) return refusal ?? 'user-gone';
    // Issued under another role: refused, so a token never outlives the role it was issued for. The
    // refresh token is unaffected: refreshing gives a token with the role as stored now.
    if (state.role !== claims.role) return 'role-changed';
    return { id: claims.id, role: state.role };
  }

  /** Why a session of `sessionVersion` no longer stands for a user in `state` (access and refresh tokens alike), or undefined. */
  refusal(state: CallerState | null, sessionVersion: number): Exclude<CallerRefusal, 'role-changed'> | undefined {
    if (!state) return 'user-gone';
    if (state.sessionVersion !== sessionVersion) return 'session-ended';
    if (this.settings.verificationRequired && !state.emailVerified) return 'unverified';
    return undefined;
  }

  /** The user's current role and session version, through the cache (null: no such user). Refresh reads the user here. */
  current(userId: string): Promise<CallerState | null> {
    return this.cached(userId);
  }

  /** Drops what this process knows of the user: call after changing their role, sessions or existence. */
  forget(userId: string): void {
    this.cache.delete(userId);
  }

  private async read(userId: string): Promise<CallerState | null> {
    const user = await this.users.findById(userId);
    const state = user && { role: user.role, sessionVersion: user.sessionVersion, emailVerified: user.emailVerified };
    if (this.settings.ttlMs > 0) this.remember(userId, Promise.resolve(state));
    return state;
  }

  private cached(userId: string): Promise<CallerState | null> {
    const now = Date.now();
    const entry = this.cache.get(userId);
    if (entry && entry.until > now) return entry.state;
    if (this.settings.ttlMs <= 0) return this.read(userId);
    // Concurrent requests of one user share one read; a failed read is not remembered.
    const state = this.users
      .findById(userId)
      .then(
        (user) => user && { role: user.role, sessionVersion: user.sessionVersion, emailVerified: user.emailVerified },
      );
    this.remember(userId, state);
    state.catch(() => this.cache.get(userId)?.state === state && this.cache.delete(userId));
    return state;
  }

  private remember(userId: string, state: Promise<CallerState | null>): void {
    this.cache.delete(userId); // re-inserted last: Map order is then oldest first
    if (this.cache.size >= this.settings.maxEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(userId, { state, until: Date.now() + this.settings.ttlMs });
  }
}
