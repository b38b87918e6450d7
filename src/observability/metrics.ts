// What the service records for Prometheus, as typed calls: every label value is one of the closed sets
// below, so the number of series is bounded by construction (no path, id, email or message ever becomes a
// label). The Prometheus implementation (prometheus-metrics.ts, prom-client) is loaded only when
// METRICS_PORT is set; otherwise every call goes to `metricsOff`, which does nothing.

/** Login attempts that reached the handler: tokens issued, credentials refused, or throttled before checking. */
export type LoginOutcome = 'success' | 'failure' | 'throttled' | 'unverified' | 'mfa-required';
/** Refresh attempts that reached the handler: a new access token, or why the cookie was refused (401). */
export type RefreshOutcome =
  | 'success'
  | 'missing-cookie'
  | 'invalid-token'
  | 'unknown-session'
  | 'reused-token'
  | 'user-gone'
  | 'session-ended'
  | 'unverified';
/** Password changes that reached the check of the current password. */
export type PasswordChangeOutcome = 'success' | 'failure';
/** How a store call ended, when it failed: the store's own error classes (src/stores/errors.ts). */
export type StoreErrorKind = 'unavailable' | 'duplicate_key' | 'other';

export const LOGIN_OUTCOMES: readonly LoginOutcome[] = [
  'success',
  'failure',
  'throttled',
  'unverified',
  'mfa-required',
];
/** Two-factor login: second factors accepted (a code, a recovery code) or refused (why), enrolments and removals. */
export type MfaOutcome =
  | 'success'
  | 'recovery-code'
  | 'invalid-token'
  | 'session-ended'
  | 'wrong-code'
  | 'replayed-code'
  | 'spent-token'
  | 'not-enrolled'
  | 'throttled'
  | 'enrolment-started'
  | 'enabled'
  | 'disabled'
  | 'recovery-codes-renewed';
export const MFA_OUTCOMES: readonly MfaOutcome[] = [
  'success',
  'recovery-code',
  'invalid-token',
  'session-ended',
  'wrong-code',
  'replayed-code',
  'spent-token',
  'not-enrolled',
  'throttled',
  'enrolment-started',
  'enabled',
  'disabled',
  'recovery-codes-renewed',
];
/** Why an OpenID Connect sign-in was refused: the flow (state), the provider, or the account rules. */
export type OidcRefusal =
  | 'bad-state'
  | 'denied'
  | 'exchange-failed'
  | 'unreachable'
  | 'unverified-email'
  | 'account-unverified'
  | 'account-exists'
  | 'registration-closed'
  | 'link-taken'
  | 'link-session-ended'
  | 'not-discovered'
  | 'stale-sign-in';
/** OpenID Connect sign-ins (sessions issued, second factor asked, refused: why) and unlinking. */
export type OidcOutcome = 'success' | 'mfa-required' | OidcRefusal | 'linked' | 'unlinked' | 'unlink-refused';
export const OIDC_OUTCOMES: readonly OidcOutcome[] = [
  'success',
  'mfa-required',
  'bad-state',
  'denied',
  'exchange-failed',
  'unreachable',
  'unverified-email',
  'account-unverified',
  'account-exists',
  'registration-closed',
  'link-taken',
  'link-session-ended',
  'not-discovered',
  'stale-sign-in',
  'linked',
  'unlinked',
  'unlink-refused',
];
/** Passkeys: sign-ins (success, refusals: why), passkeys added, removed, and refused additions and removals. */
export type PasskeyOutcome =
  | 'success'
  | 'bad-challenge'
  | 'unknown-credential'
  | 'invalid-credential'
  | 'counter'
  | 'user-gone'
  | 'added'
  | 'add-refused'
  | 'removed'
  | 'remove-refused';
export const PASSKEY_OUTCOMES: readonly PasskeyOutcome[] = [
  'success',
  'bad-challenge',
  'unknown-credential',
  'invalid-credential',
  'counter',
  'user-gone',
  'added',
  'add-refused',
  'removed',
  'remove-refused',
];
export const REFRESH_OUTCOMES: readonly RefreshOutcome[] = [
  'success',
  'missing-cookie',
  'invalid-token',
  'unknown-session',
  'reused-token',
  'user-gone',
  'session-ended',
  'unverified',
];
export const PASSWORD_CHANGE_OUTCOMES: readonly PasswordChangeOutcome[] = ['success', 'failure'];
export type PasswordResetOutcome = 'link-sent' | 'link-ignored' | 'success' | 'refused';
/** The same outcomes for email verification: a link asked for (sent or ignored), a token accepted or refused. */
export type EmailVerificationOutcome = PasswordResetOutcome;
export const PASSWORD_RESET_OUTCOMES: readonly PasswordResetOutcome[] = [
  'link-sent',
  'link-ignored',
  'success',
  'refused',
];
/** Proving the owner again: a re-authentication, and the gate of the changes to the ways in (refusals: why). */
export type OwnerProofOutcome =
  | 'reauthenticated'
  | 'reauth-refused'
  | 'step-up'
  | 'wrong-password'
  | 'wrong-code'
  | 'throttled'
  | 'session-ended'
  | 'user-gone';
export const OWNER_PROOF_OUTCOMES: readonly OwnerProofOutcome[] = [
  'reauthenticated',
  'reauth-refused',
  'step-up',
  'wrong-password',
  'wrong-code',
  'throttled',
  'session-ended',
  'user-gone',
];
export const STORE_ERROR_KINDS: readonly StoreErrorKind[] = ['unavailable', 'duplicate_key', 'other'];

/**
 * Auth events, counted where they are logged (src/modules/auth/auth-metrics.ts listens to AuthEvents). A new
 * kind of event gets its method here and its case there; the listener's exhaustive switch makes forgetting
 * it a compile error.
 */
export interface AuthMetrics {
  login(outcome: LoginOutcome): void;
  refresh(outcome: RefreshOutcome): void;
  logout(): void;
  /** POST /api/auth/logout-all: every session of the caller ended. */
  logoutAll(): void;
  /** A retired refresh token presented after the grace window (REFRESH_ROTATION): its session family was revoked. */
  refreshReuseDetected(): void;
  passwordChange(outcome: PasswordChangeOutcome): void;
  /** Password reset by email: a link asked for (sent, or ignored for an unknown or flooded address), a reset done or refused. */
  passwordReset(outcome: PasswordResetOutcome): void;
  emailVerification(outcome: EmailVerificationOutcome): void;
  mfa(outcome: MfaOutcome): void;
  oidc(outcome: OidcOutcome): void;
  passkey(outcome: PasskeyOutcome): void;
  ownerProof(outcome: OwnerProofOutcome): void;
  registration(): void;
  /** A request under /api/auth refused with 429 by the shared rate limit. */
  rateLimited(): void;
}

export interface StoreMetrics {
  /** One store call (e.g. `refresh-tokens.findByToken`) took `seconds`; `error` when it failed. */
  call(operation: string, seconds: number, error: StoreErrorKind | undefined): void;
}

export interface HttpMetrics {
  /** A request was answered; `route` is a declared route template or UNMATCHED_ROUTE. */
  request(method: string, route: string, status: number, seconds: number): void;
}

export interface Metrics {
  readonly enabled: boolean;
  readonly http: HttpMetrics;
  readonly auth: AuthMetrics;
  readonly store: StoreMetrics;
  /** The text exposition for GET /metrics. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** The one label for every request no declared route matched (404s, scans, typos). */
export const UNMATCHED_ROUTE = 'unmatched';

const nothing = () => undefined;

/** Metrics off (METRICS_PORT unset): each call is an empty function, prom-client is never loaded. */
export const metricsOff: Metrics = {
  enabled: false,
  http: { request: nothing },
  auth: {
    login: nothing,
    refresh: nothing,
    logout: nothing,
    logoutAll: nothing,
    refreshReuseDetected: nothing,
    passwordChange: nothing,
    passwordReset: nothing,
    emailVerification: nothing,
    mfa: nothing,
    oidc: nothing,
    passkey: nothing,
    ownerProof: nothing,
    registration: nothing,
    rateLimited: nothing,
  },
  store: { call: nothing },
  render: () => Promise.reject(new Error('metrics are off (METRICS_PORT is not set)')),
};
