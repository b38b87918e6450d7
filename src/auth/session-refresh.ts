import type { CallerStates } from './caller-states';
import type { RefreshRefusal, RefreshSessions } from './refresh-sessions';
import type { AccessClaims, IssuedRefreshToken } from './tokens';

export type RefreshOutcome =
  | { ok: true; user: AccessClaims; rotated?: IssuedRefreshToken }
  | { ok: false; refused: Exclude<RefreshRefusal, 'reused-token'>; userId?: string }
  | { ok: false; refused: 'reused-token'; userId?: string; familyId?: string };

/**
 * POST /api/auth/refresh: the refresh token's session (RefreshSessions: signature, store, rotation and reuse),
 * then the user as stored now, through the guards' cache (the same bound as every authenticated route,
 * docs/security.md): a deleted user, or one whose sessions ended since (logout everywhere, a password change,
 * a role change, two-factor login turned on), or one whose address is unverified while EMAIL_VERIFICATION is
 * `required`, gets no access token. The new one carries the current role.
 */
export class SessionRefresh {
  constructor(
    private readonly sessions: RefreshSessions,
    private readonly callers: CallerStates,
  ) {}

  async refresh(token: string | undefined): Promise<RefreshOutcome> {
    if (!token) return { ok: false, refused: 'missing-cookie' };
    const session = await this.sessions.refresh(token);
    if (!session.ok)
      return session.refused === 'reused-token'
        ? { ok: false, refused: 'reused-token', userId: session.userId, familyId: session.familyId }
        : { ok: false, refused: session.refused, userId: session.userId };
    const state = await this.callers.current(session.userId);
    const refusal = this.callers.refusal(state, session.sessionVersion);
    if (refusal || !state) return { ok: false, refused: refusal ?? 'user-gone', userId: session.userId };
    return {
      ok: true,
      user: { id: session.userId, role: state.role, sessionVersion: state.sessionVersion, proof: session.proof },
      rotated: session.rotated,
    };
  }
}
