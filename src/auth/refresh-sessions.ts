import { newId } from '../stores/ids';
import { digestOf } from './account-links';
import type { RefreshTokenRecord, RefreshTokenStore } from './stores/refresh-token-store';
import type { SessionProof } from './owner-proof/proofs';
import type { IssuedRefreshToken, RefreshClaims, TokenService } from './tokens';

/**
 * Why a refresh was refused; the client sees one 401 for all of them but `unverified`, a 403 that says why
 * (modules/auth/session-refusals.ts); the log tells them apart.
 */
export type RefreshRefusal =
  | 'missing-cookie'
  | 'invalid-token'
  | 'unknown-session'
  | 'reused-token'
  | 'user-gone'
  | 'session-ended'
  | 'unverified';

/** What the store keeps instead of the token: its SHA-256 digest (hex), so a database dump holds no usable token. */
export function digestRefreshToken(token: string): string {
  return digestOf(token);
}

export interface RotationPolicy {
  /** REFRESH_ROTATION: each refresh replaces the token (default off: the specification's behaviour). */
  enabled: boolean;
  /** REFRESH_REUSE_GRACE: how long a replaced token still refreshes (two tabs racing), without rotating again. */
  graceMs: number;
  /** REFRESH_EXPIRY=sliding: a rotated token gets a fresh lifetime; absolute (default) keeps the login's end. */
  sliding: boolean;
}

/** The outcome of presenting a refresh token. */
export type RefreshCheck =
  | {
      ok: true;
      userId: string;
      /** The session version the token was issued under: the caller compares it with the user's. */
      sessionVersion: number;
      /** The session's proof of its owner, as at sign-in (or the last re-authentication): refreshing proves nothing. */
      proof: SessionProof;
      rotated?: IssuedRefreshToken;
    }
  | { ok: false; refused: RefreshRefusal; userId?: string; familyId?: string };

/**
 * Refresh tokens as server-side sessions: issued at login, checked at refresh, revoked at logout. A token
 * counts only when its signature and claims are right AND its digest is in the store, unexpired, and owned
 * by the token's subject. Every login starts a session family.
 *
 * With rotation on (RFC 9700 §4.14.2), a refresh retires the presented token and issues its successor in
 * the same family. A retired token presented again within the grace window still refreshes, without a new
 * token (a browser's other tab raced the first: its cookie jar already holds the successor); after the
 * window it is a replay — a stolen token or a stolen successor — and the whole family is revoked.
 */
export class RefreshSessions {
  constructor(
    private readonly tokens: TokenService,
    private readonly store: RefreshTokenStore,
    private readonly rotation: RotationPolicy,
  ) {}

  /**
   * A new session family for the user (at their current session version), carrying how its owner proved it:
   * a refresh token, stored as its digest.
   */
  async issue(user: { id: string; sessionVersion: number }, proof: SessionProof): Promise<IssuedRefreshToken> {
    const issued = this.tokens.signRefreshToken({ userId: user.id, sessionVersion: user.sessionVersion, proof });
    await this.store.create({
      userId: user.id,
      token: digestRefreshToken(issued.token),
      expiresAt: issued.expiresAt,
      familyId: newId(),
    });
    return issued;
  }

  /** The stored record the token names, when its signature and claims are right and the record is its own. */
  private async recordOf(
    token: string,
  ): Promise<{ record: RefreshTokenRecord; claims: RefreshClaims } | RefreshRefusal> {
    const subject = this.tokens.verifyRefreshToken(token);
    if (!subject) return 'invalid-token';
    // No expired record comes back from any store (they filter in the query, before the cleanup job runs).
    const record = await this.store.findByToken(digestRefreshToken(token));
    return record && record.userId === subject.userId ? { record, claims: subject } : 'unknown-session';
  }

  /** Checks a presented refresh token and, with rotation on, replaces it. */
  async refresh(token: string): Promise<RefreshCheck> {
    const found = await this.recordOf(token);
    if (typeof found === 'string') return { ok: false, refused: found };
    const { record, claims } = found;
    const { sessionVersion, proof } = claims;
    const { userId, familyId } = record;
    const now = new Date();
    let retiredAt = record.retiredAt;
    if (!retiredAt && this.rotation.enabled) {
      // Retiring the token and storing its successor are one atomic store operation: a failure between
      // them would leave the client a retired token with no successor (a forced logout once the grace ends).
      const successor = this.tokens.signRefreshToken(claims, this.rotation.sliding ? undefined : record.expiresAt);
      const stored = { userId, token: digestRefreshToken(successor.token), expiresAt: successor.expiresAt, familyId };
      if (await this.store.rotate(record.token, stored, now))
        return { ok: true, userId, sessionVersion, proof, rotated: successor };
      retiredAt = now; // a concurrent refresh retired it a moment ago: the grace window covers this one
    }
    if (!retiredAt || now.getTime() - retiredAt.getTime() <= this.rotation.graceMs)
      return { ok: true, userId, sessionVersion, proof };
    if (this.rotation.enabled) await this.store.deleteFamily(familyId);
    return { ok: false, refused: 'reused-token', userId, familyId };
  }

  /** Ends the token's session (its whole family) if it belongs to `callerId`; true when records went. */
  async revoke(token: string, callerId: string): Promise<boolean> {
    const record = await this.store.findByToken(digestRefreshToken(token));
    if (!record || record.userId !== callerId) return false;
    return (await this.store.deleteFamily(record.familyId)) > 0;
  }

  /**
   * Deletes every refresh token of a user. Their tokens are already void once the user's session version
   * went up (AccountSessions): this removes the records, it is not what ends the sessions.
   */
  revokeAll(userId: string): Promise<number> {
    return this.store.deleteByUser(userId);
  }
}
