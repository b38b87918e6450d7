import { createHmac, hkdfSync } from 'node:crypto';
import type { Context } from 'koa';
import type { SecondStepRefusal } from '../../auth/mfa/two-factor-login';
import type { RefreshRefusal } from '../../auth/refresh-sessions';
import { clientIp } from '../../http/client-ip';
import type { Logger } from '../../logger';
import { normaliseEmail } from '../../auth/stores/email';
import type { Resolution as OidcResolution } from '../../auth/oidc/oidc-accounts';
import type { PasskeyLoginRefusal } from '../../auth/passkeys/passkey-login';
import type { OidcRefusal, OwnerProofOutcome } from '../../observability/metrics';

/** What happened at an auth route. Never a password or a token: emails only as a keyed hash. */
export type AuthEvent =
  | { action: 'login'; outcome: 'success'; userId: string }
  | { action: 'login'; outcome: 'failure'; userId?: string; email: string }
  | { action: 'login'; outcome: 'throttled'; email: string }
  | { action: 'refresh'; outcome: 'success'; userId: string }
  | { action: 'refresh'; outcome: 'refused'; reason: RefreshRefusal; userId?: string }
  | { action: 'refresh'; outcome: 'reuse-detected'; userId: string; familyId: string }
  | { action: 'logout'; outcome: 'success'; userId: string; revoked: boolean }
  | { action: 'logout-all'; outcome: 'success'; userId: string; revoked: number }
  | { action: 'password-change'; outcome: 'success' | 'failure'; userId: string }
  | { action: 'register'; outcome: 'success'; userId: string }
  | { action: 'register'; outcome: 'taken'; email: string }
  | { action: 'password-reset-request'; outcome: 'success' | 'ignored'; email: string }
  | { action: 'password-reset'; outcome: 'success'; userId: string }
  | { action: 'password-reset'; outcome: 'refused' }
  | { action: 'verification-request'; outcome: 'success' | 'ignored'; email: string }
  | { action: 'email-verification'; outcome: 'success'; userId: string }
  | { action: 'email-verification'; outcome: 'refused' }
  | { action: 'login'; outcome: 'unverified'; userId: string }
  | { action: 'login'; outcome: 'mfa-required'; userId: string }
  | { action: 'mfa-verify'; outcome: 'success'; userId: string; via: 'code' | 'recovery-code' }
  | { action: 'mfa-verify'; outcome: 'refused'; reason: MfaRefusal; userId?: string }
  | { action: 'mfa-verify'; outcome: 'throttled'; userId: string }
  | { action: 'mfa-enroll'; outcome: 'started' | 'confirmed' | 'wrong-code'; userId: string }
  | { action: 'mfa-disable'; outcome: 'success'; userId: string }
  | { action: 'mfa-recovery-codes'; outcome: 'success'; userId: string }
  | {
      action: 'oidc-login';
      outcome: 'success' | 'mfa-required';
      userId: string;
      provider: string;
      linked: OidcResolution;
    }
  | { action: 'oidc-login'; outcome: 'refused'; reason: OidcRefusal; provider: string; detail?: string }
  | { action: 'oidc-unlink'; outcome: 'success' | 'refused'; userId: string; provider: string }
  | { action: 'oidc-link'; outcome: 'success'; userId: string; provider: string }
  | { action: 'passkey-login'; outcome: 'success'; userId: string; passkeyId: string }
  | { action: 'passkey-login'; outcome: 'refused'; reason: PasskeyLoginRefusal; userId?: string }
  | { action: 'passkey-register'; outcome: 'started' | 'success'; userId: string; passkeyId?: string }
  | { action: 'passkey-register'; outcome: 'refused'; reason: PasskeyRegisterRefusal; userId?: string }
  | { action: 'passkey-remove'; outcome: 'success' | 'refused'; userId: string; passkeyId: string }
  | {
      action: 'owner-proof';
      outcome: 'refused';
      reason: Exclude<OwnerProofOutcome, 'reauthenticated' | 'reauth-refused'>;
      userId: string;
    }
  | { action: 'reauth'; outcome: 'success'; userId: string; via: string }
  | { action: 'reauth'; outcome: 'refused'; reason: string; userId: string }
  | { action: 'rate-limit'; outcome: 'limited' };

/** Why adding a passkey was refused: the ceremony, or the account's limits (the owner's proof: 'owner-proof' events). */
export type PasskeyRegisterRefusal = 'too-many' | 'bad-challenge' | 'invalid-credential' | 'already-registered';

/** Why a second factor was refused: the challenge token (invalid, from ended sessions, spent already), or the code. */
export type MfaRefusal = SecondStepRefusal;

export type AuthEventListener = (event: AuthEvent, ctx: Context) => void;

/**
 * Auth events as structured log lines (OWASP ASVS V16: log authentication decisions), one line each, with
 * the request id and client IP, and a place for other listeners (metrics) to hear the same events.
 *
 * An unknown user has no id, and the email they tried must not land in logs in the clear: it is logged as
 * a keyed hash (HMAC-SHA256 with a key derived from JWT_SECRET, so every replica hashes alike and the log
 * alone cannot be dictionary-searched). Repeated failures on one address show up as one hash.
 */
export class AuthEvents {
  private readonly emailKey: Buffer;
  private readonly listeners: AuthEventListener[] = [];

  /**
   * The event lines' writer: a child without pino's redaction pass, like the request log line's. An event's
   * keys are the ones this class writes from the AuthEvent type (ids, outcomes, a keyed email hash), none a
   * password or a token, so redaction would search each line for nothing (~5 % of a refresh's CPU).
   */
  private readonly lines: Logger;

  constructor(logger: Logger, secret: string) {
    this.lines = logger.child({}, { redact: [] });
    this.emailKey = Buffer.from(hkdfSync('sha256', secret, '', 'auth-event-email-hash', 32));
  }

  /** Adds a listener (e.g. metrics); listeners must be cheap and must not throw. */
  subscribe(listener: AuthEventListener): void {
    this.listeners.push(listener);
  }

  /** The keyed hash an email is logged as: the same for every spelling that reaches the same account. */
  emailHash(email: string): string {
    return createHmac('sha256', this.emailKey).update(normaliseEmail(email)).digest('hex').slice(0, 32);
  }

  record(ctx: Context, event: AuthEvent): void {
    const { action, outcome } = event;
    const line: Record<string, unknown> = {
      event: 'auth',
      action,
      outcome,
      reqId: ctx.state.requestId,
      ip: clientIp(ctx),
    };
    const userId = 'userId' in event ? event.userId : undefined;
    if (userId) line.userId = userId;
    else if ('email' in event) line.emailHash = this.emailHash(event.email);
    if ('reason' in event) line.reason = event.reason;
    if ('revoked' in event) line.revoked = event.revoked;
    if ('familyId' in event) line.familyId = event.familyId;
    if ('via' in event) line.via = event.via;
    if ('provider' in event) line.provider = event.provider;
    if ('linked' in event) line.linked = event.linked;
    if ('detail' in event && event.detail) line.detail = event.detail;
    if ('passkeyId' in event && event.passkeyId) line.passkeyId = event.passkeyId;
    const routine =
      outcome === 'success' ||
      outcome === 'ignored' ||
      outcome === 'mfa-required' ||
      outcome === 'started' ||
      outcome === 'confirmed';
    this.lines[routine ? 'info' : 'warn'](line, `auth ${action} ${outcome}`);
    for (const listener of this.listeners) listener(event, ctx);
  }
}
