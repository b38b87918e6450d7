// What the service records for Prometheus, as typed calls: every label value is one of the closed sets
// below, so the number of series is bounded by construction (no path, id, email or message ever becomes a
// label). The Prometheus implementation (prometheus-metrics.ts, prom-client) is loaded only when
// METRICS_PORT is set; otherwise every call goes to `metricsOff`, which does nothing.

/** Login attempts that reached the handler: a token pair issued, or credentials refused. */
export type LoginOutcome = 'success' | 'invalid_credentials';
/** Refresh attempts that reached the handler: a new access token, or the cookie refused (401). */
export type RefreshOutcome = 'success' | 'rejected';
/** Auth requests the rate limiter turned away: over the limit (429), or its store unreachable (503). */
export type RateLimitRejection = 'limit_exceeded' | 'store_unavailable';
/** How a store call ended, when it failed: the store's own error classes (src/stores/errors.ts). */
export type StoreErrorKind = 'unavailable' | 'duplicate_key' | 'other';

export const LOGIN_OUTCOMES: readonly LoginOutcome[] = ['success', 'invalid_credentials'];
export const REFRESH_OUTCOMES: readonly RefreshOutcome[] = ['success', 'rejected'];
export const RATE_LIMIT_REJECTIONS: readonly RateLimitRejection[] = ['limit_exceeded', 'store_unavailable'];
export const STORE_ERROR_KINDS: readonly StoreErrorKind[] = ['unavailable', 'duplicate_key', 'other'];

/**
 * Auth events. Issue 15 (rotation, per-account throttling) adds its counters here, next to its log lines:
 * a `throttled` rejection and a `rotationReuse()` call, each with a producer from the day it exists.
 */
export interface AuthMetrics {
  login(outcome: LoginOutcome): void;
  refresh(outcome: RefreshOutcome): void;
  rateLimited(reason: RateLimitRejection): void;
}

export interface StoreMetrics {
  /** One store call (e.g. `refreshTokens.findByToken`) took `seconds`; `error` when it failed. */
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
  auth: { login: nothing, refresh: nothing, rateLimited: nothing },
  store: { call: nothing },
  render: () => Promise.reject(new Error('metrics are off (METRICS_PORT is not set)')),
};
