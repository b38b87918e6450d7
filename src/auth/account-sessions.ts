import type { CallerStates } from './caller-states';
import type { SessionProof } from './owner-proof/proofs';
import type { RefreshSessions } from './refresh-sessions';
import type { UserStore } from './stores/user-store';
import type { IssuedRefreshToken } from './tokens';

/**
 * Ending every session of a user, in one place: logout everywhere, a password change or reset, a
 * deleted user. The user's session version goes up in one statement on the user's row: from then on no
 * access token already out passes the guards (on this replica at once, on others within
 * AUTH_STATE_CACHE_TTL) and no refresh token refreshes (refresh compares versions). Deleting the refresh
 * records afterwards is cleanup: if it fails, nothing those records name works any more
 * (docs/decisions/010: no step needs a transaction across the two stores).
 */
export class AccountSessions {
  constructor(
    private readonly users: Pick<UserStore, 'endSessions' | 'changePassword' | 'findById'>,
    private readonly refresh: RefreshSessions,
    private readonly callers: CallerStates,
  ) {}

  /** Ends them all; returns how many refresh tokens went. */
  async endAll(userId: string): Promise<number> {
    await this.users.endSessions(userId);
    this.callers.forget(userId);
    return this.refresh.revokeAll(userId);
  }

  /**
   * Ends them all for a change the caller made themselves (two-factor login turned on, a way in removed), and
   * starts the caller's next session, carrying the proof the change was made with: its refresh token. Only when
   * the session version went from the caller's (`user.sessionVersion`) to the next: if another change (a logout
   * everywhere, another removal) ended the sessions meanwhile, the caller gets none either, as when the user is gone.
   */
  async restart(
    user: { id: string; sessionVersion: number },
    proof: SessionProof,
  ): Promise<IssuedRefreshToken | undefined> {
    await this.endAll(user.id);
    const now = await this.users.findById(user.id);
    return now && now.sessionVersion === user.sessionVersion + 1 ? this.refresh.issue(now, proof) : undefined;
  }

  /**
   * Sets a new password hash and ends every session, in one statement; then the caller's next session, as
   * `restart` does (none when another change ended the sessions meanwhile, or the user is gone).
   */
  async changePassword(
    user: { id: string; sessionVersion: number },
    passwordHash: string,
    proof: SessionProof,
  ): Promise<IssuedRefreshToken | undefined> {
    const sessionVersion = await this.setPassword(user.id, passwordHash);
    return sessionVersion === user.sessionVersion + 1
      ? this.refresh.issue({ id: user.id, sessionVersion }, proof)
      : undefined;
  }

  /** Sets a new password hash and ends every session, in one statement (a reset: no session follows); the new session version. */
  async setPassword(userId: string, passwordHash: string): Promise<number | undefined> {
    const sessionVersion = await this.users.changePassword(userId, passwordHash);
    this.callers.forget(userId);
    if (sessionVersion !== undefined) await this.refresh.revokeAll(userId);
    return sessionVersion;
  }

  /** After the user was deleted or changed elsewhere (their role): what this replica knows of them goes. */
  forget(userId: string): void {
    this.callers.forget(userId);
  }
}
