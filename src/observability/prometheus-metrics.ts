import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  LOGIN_OUTCOMES,
  PASSWORD_CHANGE_OUTCOMES,
  PASSWORD_RESET_OUTCOMES,
  MFA_OUTCOMES,
  OIDC_OUTCOMES,
  PASSKEY_OUTCOMES,
  OWNER_PROOF_OUTCOMES,
  REFRESH_OUTCOMES,
  STORE_ERROR_KINDS,
  type Metrics,
  type StoreErrorKind,
} from './metrics';
import type { PoolStats } from '../stores/types';

// The Prometheus side of metrics.ts, with prom-client. Loaded only when METRICS_PORT is set. One registry
// per service (not prom-client's global one), so tests can build several apps in one process.

export interface PrometheusMetricsOptions {
  /** Store operations that can be reported (bounded label set); counters start at 0 for each. */
  storeOperations: readonly string[];
  /** Connection pool occupancy, read at scrape time; absent when the driver does not report it (SQLite). */
  poolStats?: () => PoolStats | undefined;
}

/** Request durations from 1 ms (a protected GET) to 10 s (a store near its deadline). */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Methods Node's parser accepts but no route uses collapse into one label. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

export function createPrometheusMetrics(options: PrometheusMetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requestDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Time from the request entering the app to its response being decided, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  // Children by "method route status": the label object is hashed once per combination, not per request.
  const requestChildren = new Map<string, ReturnType<typeof requestDuration.labels>>();

  const logins = new Counter({
    name: 'auth_login_attempts_total',
    help: 'Login attempts that reached the handler, by outcome: success, failure (bad credentials), throttled',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const refreshes = new Counter({
    name: 'auth_refresh_attempts_total',
    help: 'Refresh attempts that reached the handler, by outcome: success, or why the cookie was refused',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const logouts = new Counter({ name: 'auth_logouts_total', help: 'Successful logouts', registers: [registry] });
  const logoutsAll = new Counter({
    name: 'auth_logout_all_total',
    help: 'Logouts from every device (POST /api/auth/logout-all)',
    registers: [registry],
  });
  const reuseDetected = new Counter({
    name: 'auth_refresh_reuse_detected_total',
    help: 'Retired refresh tokens presented after the grace window (REFRESH_ROTATION): each revoked a session family',
    registers: [registry],
  });
  const passwordChanges = new Counter({
    name: 'auth_password_changes_total',
    help: 'Password changes by outcome: success, failure (wrong current password)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const passwordResets = new Counter({
    name: 'auth_password_resets_total',
    help: 'Password reset by email: link-sent, link-ignored (unknown or flooded address), success, refused (bad token)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const emailVerifications = new Counter({
    name: 'auth_email_verifications_total',
    help: 'Email verification: link-sent, link-ignored (unknown, verified or flooded address), success, refused (bad token)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const mfa = new Counter({
    name: 'auth_mfa_total',
    help: 'Two-factor login: success, recovery-code, refusals (invalid-token, session-ended, wrong-code, replayed-code, not-enrolled, throttled), enrolment-started, enabled, disabled, recovery-codes-renewed',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const oidc = new Counter({
    name: 'auth_oidc_total',
    help: 'Sign-in with OpenID Connect providers: success, mfa-required, refusals (bad-state, denied, exchange-failed, unreachable, unverified-email, account-unverified, registration-closed), unlinked, unlink-refused',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const passkeys = new Counter({
    name: 'auth_passkey_total',
    help: 'Passkeys: sign-in success, refusals (bad-challenge, unknown-credential, invalid-credential, counter, user-gone), added, add-refused, removed, remove-refused',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const ownerProofs = new Counter({
    name: 'auth_owner_proof_total',
    help: 'Proving the owner again: reauthenticated, reauth-refused, and refused changes to the ways in (step-up, wrong-password, wrong-code, throttled, session-ended, user-gone)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const registrations = new Counter({
    name: 'auth_registrations_total',
    help: 'Users registered (AUTH_REGISTRATION)',
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'auth_rate_limited_total',
    help: 'Requests under /api/auth refused with 429 by the shared per-client rate limit',
    registers: [registry],
  });
  const storeDuration = new Histogram({
    name: 'db_client_operation_duration_seconds',
    help: 'Duration of store calls (one call may be several queries), failed ones included',
    labelNames: ['operation'] as const,
    buckets: STORE_BUCKETS,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'db_client_operation_errors_total',
    help: 'Failed store calls by kind: unavailable (an outage: answered 503), duplicate_key, other (a bug: 500)',
    labelNames: ['operation', 'kind'] as const,
    registers: [registry],
  });

  // Every series exists from the start at 0, so rate() and absent() behave before the first event.
  for (const outcome of LOGIN_OUTCOMES) logins.labels(outcome).inc(0);
  for (const outcome of REFRESH_OUTCOMES) refreshes.labels(outcome).inc(0);
  for (const outcome of PASSWORD_CHANGE_OUTCOMES) passwordChanges.labels(outcome).inc(0);
  for (const outcome of PASSWORD_RESET_OUTCOMES) passwordResets.labels(outcome).inc(0);
  for (const outcome of PASSWORD_RESET_OUTCOMES) emailVerifications.labels(outcome).inc(0);
  for (const outcome of MFA_OUTCOMES) mfa.labels(outcome).inc(0);
  for (const outcome of OIDC_OUTCOMES) oidc.labels(outcome).inc(0);
  for (const outcome of PASSKEY_OUTCOMES) passkeys.labels(outcome).inc(0);
  for (const outcome of OWNER_PROOF_OUTCOMES) ownerProofs.labels(outcome).inc(0);
  const knownOperations = new Set(options.storeOperations);
  for (const operation of knownOperations) {
    for (const kind of STORE_ERROR_KINDS) storeErrors.labels(operation, kind).inc(0);
  }

  const { poolStats } = options;
  if (poolStats?.()) {
    new Gauge({
      name: 'db_client_connections',
      help: 'Database connections in the pool by state: used, idle, and pending (requests waiting for one)',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const stats = poolStats();
        if (!stats) return;
        this.labels('used').set(stats.used);
        this.labels('idle').set(stats.idle);
        this.labels('pending').set(stats.pending);
      },
    });
  }

  return {
    enabled: true,
    http: {
      request(method, route, status, seconds) {
        const known = METHODS.has(method) ? method : 'OTHER';
        const key = `${known} ${route} ${status}`;
        let child = requestChildren.get(key);
        if (!child) {
          child = requestDuration.labels(known, route, statusClass(status));
          requestChildren.set(key, child);
        }
        child.observe(seconds);
      },
    },
    auth: {
      login: (outcome) => logins.labels(outcome).inc(),
      refresh: (outcome) => refreshes.labels(outcome).inc(),
      logout: () => logouts.inc(),
      logoutAll: () => logoutsAll.inc(),
      refreshReuseDetected: () => reuseDetected.inc(),
      passwordChange: (outcome) => passwordChanges.labels(outcome).inc(),
      passwordReset: (outcome) => passwordResets.labels(outcome).inc(),
      emailVerification: (outcome) => emailVerifications.labels(outcome).inc(),
      mfa: (outcome) => mfa.labels(outcome).inc(),
      oidc: (outcome) => oidc.labels(outcome).inc(),
      passkey: (outcome) => passkeys.labels(outcome).inc(),
      ownerProof: (outcome) => ownerProofs.labels(outcome).inc(),
      registration: () => registrations.inc(),
      rateLimited: () => rateLimited.inc(),
    },
    store: {
      call(operation: string, seconds: number, error: StoreErrorKind | undefined) {
        if (!knownOperations.has(operation)) return; // bounded by construction: only declared operations
        storeDuration.labels(operation).observe(seconds);
        if (error) storeErrors.labels(operation, error).inc();
      },
    },
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
