import type { AccountSessions } from './account-sessions';
import type { AttemptOrigin, PasswordCheck } from './password-check';
import { passwordRefusal } from './password-policy';
import type { PasswordHasher } from './passwords';
import type { RefreshSessions } from './refresh-sessions';
import type { UserRecord } from './stores/user-store';
import type { IssuedRefreshToken } from './tokens';

export type PasswordChangeOutcome =
  | { ok: true; session: IssuedRefreshToken }
  | { ok: false; refused: 'wrong-password' | 'user-gone' }
  | { ok: false; refused: 'throttled'; retryAfterSeconds: number }
  | { ok: false; refused: 'policy'; message: string };

/**
 * The signed-in user changes their password (POST /api/auth/password): the current one first (PasswordCheck,
 * counted by the login throttle), then the new one against the policy of registration; then one statement
 * sets the hash and ends every session (AccountSessions) — a thief holding a refresh or access token is out —
 * and the caller gets a new session (its refresh token).
 */
export class PasswordChange {
  constructor(
    private readonly passwords: PasswordCheck,
    private readonly hasher: PasswordHasher,
    private readonly accounts: AccountSessions,
    private readonly refresh: RefreshSessions,
  ) {}

  async change(user: UserRecord, currentPassword: string, newPassword: string, origin: AttemptOrigin): Promise<PasswordChangeOutcome> {
    const check = await this.passwords.check(user, currentPassword, origin);
    if (!check.ok) return check;
    const refusal = passwordRefusal(newPassword, { email: user.email, name: user.name, currentPassword });
    if (refusal) return { ok: false, refused: 'policy', message: refusal };
    // Deleting the old refresh records after the statement is cleanup, not what ends them.
    const sessionVersion = await this.accounts.changePassword(user.id, await this.hasher.hash(newPassword));
    if (sessionVersion === undefined) return { ok: false, refused: 'user-gone' }; // deleted meanwhile
    return { ok: true, session: await this.refresh.issue({ id: user.id, sessionVersion }) };
  }
}
