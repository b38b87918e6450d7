import type { LoginOutcome } from '../../auth/password-login';
import type { RefreshOutcome } from '../../auth/session-refresh';
import type { RefreshRefusal } from '../../auth/refresh-sessions';
import { HttpError, unauthorized } from '../../http/errors';
import type { AuthEvent } from './auth-events';
import { tooManyAttempts } from './caller-password';

// What a refused login or refresh answers and records, one table each, so every refusal the flows can return
// has its status, message and event written once (and a new refusal does not compile until it has them).

/** The login answer for a right password on an address not verified yet (EMAIL_VERIFICATION=required). */
export const EMAIL_NOT_VERIFIED =
  'Email address not verified: follow the link sent to it, or ask for a new one (POST /api/auth/resend-verification)';

/** The error a refusal answers and the event it records. */
export interface Refused {
  error: HttpError;
  event: AuthEvent;
}

export type LoginRefusal = Extract<LoginOutcome, { outcome: 'throttled' | 'failure' | 'unverified' }>;

const LOGIN_REFUSALS: {
  [O in LoginRefusal['outcome']]: (refusal: Extract<LoginRefusal, { outcome: O }>, email: string) => Refused;
} = {
  throttled: (refusal, email) => ({
    error: tooManyAttempts(refusal.retryAfterSeconds, 'failed logins'),
    event: { action: 'login', outcome: 'throttled', email },
  }),
  // One message for an unknown address and a wrong password alike.
  failure: (refusal, email) => ({
    error: unauthorized('Invalid email or password'),
    event: { action: 'login', outcome: 'failure', userId: refusal.userId, email },
  }),
  unverified: (refusal) => ({
    error: new HttpError(403, EMAIL_NOT_VERIFIED),
    event: { action: 'login', outcome: 'unverified', userId: refusal.userId },
  }),
};

/** A refused login (`email` as the caller gave it) as answered and recorded. */
export const loginRefused = (refusal: LoginRefusal, email: string): Refused =>
  (LOGIN_REFUSALS[refusal.outcome] as (refusal: LoginRefusal, email: string) => Refused)(refusal, email);

/**
 * Each refused refresh's status and message. Every one clears the cookie, so the browser stops sending a dead
 * token; only an address not verified yet is told why.
 */
const REFRESH_REFUSED = { status: 401, message: 'Invalid or expired refresh token' } as const;
const REFRESH_REFUSALS: Record<RefreshRefusal, { status: 401 | 403; message: string }> = {
  'missing-cookie': REFRESH_REFUSED,
  'invalid-token': REFRESH_REFUSED,
  'unknown-session': REFRESH_REFUSED,
  'reused-token': REFRESH_REFUSED,
  'user-gone': REFRESH_REFUSED,
  'session-ended': REFRESH_REFUSED,
  unverified: { status: 403, message: EMAIL_NOT_VERIFIED },
};

/** A refused refresh as answered (with `clearedCookie` set) and recorded. */
export function refreshRefused(outcome: Extract<RefreshOutcome, { ok: false }>, clearedCookie: string): Refused {
  const { status, message } = REFRESH_REFUSALS[outcome.refused];
  // A replaced token that came back after the grace window: stolen, or its successor was. The family is gone.
  const event: AuthEvent =
    outcome.refused === 'reused-token' && outcome.userId && outcome.familyId
      ? { action: 'refresh', outcome: 'reuse-detected', userId: outcome.userId, familyId: outcome.familyId }
      : { action: 'refresh', outcome: 'refused', reason: outcome.refused, userId: outcome.userId };
  return { error: new HttpError(status, message, { headers: { 'Set-Cookie': clearedCookie } }), event };
}
