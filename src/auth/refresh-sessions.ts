import { createHash } from 'node:crypto';
import type { RefreshTokenStore } from '../stores/types';
import type { IssuedRefreshToken, TokenService } from './tokens';

/** Why a refresh was refused; the client sees one 401 for all of them, the log tells them apart. */
export type RefreshRefusal = 'missing-cookie' | 'invalid-token' | 'unknown-session' | 'user-gone';

/** What the store keeps instead of the token: its SHA-256 digest (hex), so a database dump holds no usable token. */
export function digestRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Refresh tokens as server-side sessions: issued at login, checked at refresh, revoked at logout.
 * A token counts only when its signature and type are right AND its digest is in the store, unexpired,
 * and owned by the token's subject.
 */
export class RefreshSessions {
  constructor(
    private readonly tokens: TokenService,
    private readonly store: RefreshTokenStore,
  ) {}

  async issue(userId: string): Promise<IssuedRefreshToken> {
    const issued = this.tokens.signRefreshToken(userId);
    await this.store.create({ userId, token: digestRefreshToken(issued.token), expiresAt: issued.expiresAt });
    return issued;
  }

  /** The owner's id when the token is valid and still stored, else why not. The record is left as it is. */
  async ownerOf(token: string): Promise<{ userId: string } | { refused: RefreshRefusal }> {
    const subject = this.tokens.verifyRefreshToken(token);
    if (!subject) return { refused: 'invalid-token' };
    const record = await this.store.findByToken(digestRefreshToken(token));
    // No expired record comes back from any store (they filter in the query, before the cleanup job runs).
    if (!record || record.userId !== subject) return { refused: 'unknown-session' };
    return { userId: record.userId };
  }

  /** Deletes the token's record only if it belongs to `callerId`; true when a record went. */
  async revoke(token: string, callerId: string): Promise<boolean> {
    const digest = digestRefreshToken(token);
    const record = await this.store.findByToken(digest);
    if (!record || record.userId !== callerId) return false;
    return this.store.deleteByToken(digest);
  }
}
