import { ConfigError } from './errors';
import { boolean, durationSeconds, integer, oneOf, read, timerMs, type Env } from './readers';

// The settings of authentication: token lifetime and claims, the demo user, roles, refresh rotation and
// login throttling. Read by loadConfig (config.ts), which keeps the rest.

export interface DemoUserSettings {
  email: string;
  password: string;
  role: string;
}

/** Failed logins allowed per (account, client) and per account before that login is refused for the window. */
export interface LoginThrottleSettings {
  pairFailures: number;
  accountFailures: number;
  windowMs: number;
}

/** Refresh-token rotation (off by default: the specification keeps the stored record unchanged). */
export interface RefreshRotationSettings {
  enabled: boolean;
  graceMs: number;
  sliding: boolean;
}

/** The access-token lifetime: the specification's forms reach up to 7d, so that is the ceiling. */
const MAX_ACCESS_TTL_SECONDS = 7 * 86_400;
const LONG_ACCESS_TTL_SECONDS = 3600;

export function accessTtlSeconds(env: Env, production: boolean, warnings: string[]): number {
  const seconds = durationSeconds(env, 'JWT_EXPIRES_IN', '15m');
  if (seconds > MAX_ACCESS_TTL_SECONDS)
    throw new ConfigError('JWT_EXPIRES_IN', 'must be at most 7d (an access token cannot be revoked before it expires)');
  if (production && seconds > LONG_ACCESS_TTL_SECONDS) {
    warnings.push('JWT_EXPIRES_IN is above 1h: an access token stays valid that long after logout or a role change');
  }
  return seconds;
}

/** A token claim value (JWT_ISSUER, JWT_AUDIENCE): printable, no spaces, at most 200 characters. */
export function claim(env: Env, name: string, fallback: string): string {
  const value = read(env, name) ?? fallback;
  if (!/^[\x21-\x7e]{1,200}$/.test(value))
    throw new ConfigError(name, 'must be 1 to 200 printable characters without spaces');
  return value;
}

/** The documented demo password: never accepted in production (anyone who read the README can log in). */
export const DEFAULT_DEMO_PASSWORD = 'demo-password';

export function demoUser(env: Env, production: boolean, demoStore: boolean): DemoUserSettings {
  const password = read(env, 'DEMO_USER_PASSWORD');
  if (production && demoStore && (password === undefined || password === DEFAULT_DEMO_PASSWORD)) {
    throw new ConfigError(
      'DEMO_USER_PASSWORD',
      'must be set to a non-default value when USER_STORE=demo in production (or set USER_STORE=database)',
    );
  }
  return {
    email: (read(env, 'DEMO_USER_EMAIL') ?? 'demo@example.com').toLowerCase(),
    password: password ?? DEFAULT_DEMO_PASSWORD,
    role: read(env, 'DEMO_USER_ROLE') ?? 'user',
  };
}

const REQUIRED_ROLES = ['user', 'admin'];

export function roles(env: Env): string[] {
  const list = [
    ...new Set(
      (read(env, 'ROLES') ?? REQUIRED_ROLES.join(','))
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean),
    ),
  ];
  if (!list.every((role) => /^[A-Za-z0-9_-]{1,64}$/.test(role))) {
    throw new ConfigError('ROLES', 'must be a comma-separated list of names made of letters, digits, - and _');
  }
  // New users get `user`; the user-management routes require `admin`.
  if (!REQUIRED_ROLES.every((role) => list.includes(role)))
    throw new ConfigError('ROLES', 'must include user and admin');
  return list;
}

/**
 * The grace window lets a replaced refresh token refresh again (two tabs racing). Long, it switches reuse
 * detection off without saying so: a minute covers any race between tabs, and it must end well before
 * the token itself does.
 */
const MAX_REUSE_GRACE_MS = 60_000;

export function refreshRotation(env: Env, refreshTtlSeconds: number): RefreshRotationSettings {
  const graceMs = timerMs(env, 'REFRESH_REUSE_GRACE', '10s', true);
  if (graceMs > MAX_REUSE_GRACE_MS || graceMs >= refreshTtlSeconds * 1000) {
    throw new ConfigError('REFRESH_REUSE_GRACE', 'must be at most 60s (a longer window switches reuse detection off)');
  }
  return {
    enabled: boolean(env, 'REFRESH_ROTATION', false),
    graceMs,
    sliding: oneOf(env, 'REFRESH_EXPIRY', ['absolute', 'sliding'], 'absolute') === 'sliding',
  };
}

/** How long a user's state read for authorisation may serve later requests (src/auth/caller-states.ts). */
const MAX_CALLER_STATE_TTL_MS = 60_000;

export function callerStateTtlMs(env: Env): number {
  const ttlMs = timerMs(env, 'AUTH_STATE_CACHE_TTL', '5s', true);
  if (ttlMs > MAX_CALLER_STATE_TTL_MS) {
    throw new ConfigError(
      'AUTH_STATE_CACHE_TTL',
      'must be at most 60s (a deleted or logged-out user keeps access that long)',
    );
  }
  return ttlMs;
}

export function loginThrottle(env: Env): LoginThrottleSettings {
  const pairFailures = integer(env, 'LOGIN_THROTTLE_FAILURES', 5, 1, 1000);
  const accountFailures = integer(env, 'LOGIN_THROTTLE_ACCOUNT_FAILURES', 50, 1, 1_000_000);
  if (accountFailures < pairFailures) {
    // Below the pair limit, one address could lock the account for everyone: the very thing the pair limit prevents.
    throw new ConfigError('LOGIN_THROTTLE_ACCOUNT_FAILURES', 'must be at least LOGIN_THROTTLE_FAILURES');
  }
  return { pairFailures, accountFailures, windowMs: timerMs(env, 'LOGIN_THROTTLE_WINDOW', '15m') };
}

/** The longest REAUTH_MAX_AGE: past an access token's usual lifetime, "recent" would mean "any sign-in". */
const MAX_REAUTH_AGE_SECONDS = 3600;

/**
 * REAUTH_MAX_AGE: how old the owner's proof may be for a change to the ways into the account (RFC 9470's
 * `max_age`); a few seconds is accepted (tests), an hour at most.
 */
export function reauthMaxAgeSeconds(env: Env): number {
  const seconds = durationSeconds(env, 'REAUTH_MAX_AGE', '5m');
  if (seconds > MAX_REAUTH_AGE_SECONDS)
    throw new ConfigError('REAUTH_MAX_AGE', 'must be at most 1h (a change to the ways in asks for a recent proof)');
  return seconds;
}
