import { createHash } from 'node:crypto';
import { newId } from '../stores/ids';
import type { RefreshTokenRecord, RefreshTokenStore } from './stores/refresh-token-store';
import type { IssuedRefreshToken, TokenService } from './tokens';

/** Why a refresh was refused; the client sees one 401 for all of them, the log tells them apart. */
export type RefreshRefusal = 'missing-cookie' | 'invalid-token' | 'unknown-session' | 'reused-token' | 'user-gone';

/** What the store keeps instead of the token: its SHA-256 digest (hex), so a database dump holds no usable token. */
export function digestRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
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
  | { ok: true; userId: string; rotated?: IssuedRefreshToken }
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

  /** A new session family for `userId`: a refresh token, stored as its digest. */
  issue(userId: string): Promise<IssuedRefreshToken> {
    return this.persist(userId, newId());
  }

  private async persist(userId: string, familyId: string, expiresAt?: Date): Promise<IssuedRefreshToken> {
    const issued = this.tokens.signRefreshToken(userId, expiresAt);
    await this.store.create({ userId, token: digestRefreshToken(issued.token), expiresAt: issued.expiresAt, familyId });
    return issued;
  }

  /** The stored record the token names, when its signature and claims are right and the record is its own. */
  private async recordOf(token: string): Promise<RefreshTokenRecord | RefreshRefusal> {
    const subject = this.tokens.verifyRefreshToken(token);
    if (!subject) return 'invalid-token';
    // No expired record comes back from any store (they filter in the query, before the cleanup job runs).
    const record = await this.store.findByToken(digestRefreshToken(token));
    return record && record.userId === subject ? record : 'unknown-session';
  }

  /** Checks a presented refresh token and, with rotation on, replaces it. */
  async refresh(token: string): Promise<RefreshCheck> {
    const record = await this.recordOf(token);
    if (typeof record === 'string') return { ok: false, refused: record };
    const { userId, familyId } = record;
    const now = new Date();
    let retiredAt = record.retiredAt;
    if (!retiredAt && this.rotation.enabled) {
      if (await this.store.retire(record.token, now)) {
        const expiresAt = this.rotation.sliding ? undefined : record.expiresAt;
        return { ok: true, userId, rotated: await this.persist(userId, familyId, expiresAt) };
      }
      retiredAt = now; // a concurrent refresh retired it a moment ago: the grace window covers this one
    }
    if (!retiredAt || now.getTime() - retiredAt.getTime() <= this.rotation.graceMs) return { ok: true, userId };
    if (this.rotation.enabled) await this.store.deleteFamily(familyId);
    return { ok: false, refused: 'reused-token', userId, familyId };
  }

  /** Ends the token's session (its whole family) if it belongs to `callerId`; true when records went. */
  async revoke(token: string, callerId: string): Promise<boolean> {
    const record = await this.store.findByToken(digestRefreshToken(token));
    if (!record || record.userId !== callerId) return false;
    return (await this.store.deleteFamily(record.familyId)) > 0;
  }

  /** Ends every session of a user: logout everywhere, a password change, the user deleted. */
  revokeAll(userId: string): Promise<number> {
    return this.store.deleteByUser(userId);
  }
}
