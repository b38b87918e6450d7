import type { CallerStates } from './caller-states';
import type { RefreshSessions } from './refresh-sessions';
import type { UserStore } from './stores/user-store';

/**
 * Ending every session of a user, in one place: logout everywhere, a password change or reset, a
 * deleted user. The user's session version goes up first — from then on no access token already out
 * passes the guards (on this replica at once, on others within AUTH_STATE_CACHE_TTL) — then every refresh
 * token is deleted, so no new access token can be had either.
 */
export class AccountSessions {
  constructor(
    private readonly users: Pick<UserStore, 'endSessions'>,
    private readonly refresh: RefreshSessions,
    private readonly callers: CallerStates,
  ) {}

  /** Ends them all; returns how many refresh tokens went. */
  async endAll(userId: string): Promise<number> {
    await this.users.endSessions(userId);
    this.callers.forget(userId);
    return this.refresh.revokeAll(userId);
  }

  /** After the user was deleted or changed elsewhere (their role): what this replica knows of them goes. */
  forget(userId: string): void {
    this.callers.forget(userId);
  }
}
