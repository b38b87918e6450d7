import { DEFAULT_HASH_CONCURRENCY, DEFAULT_HASH_QUEUE } from '../auth/hash-queue';
import { parseDurationSeconds } from './duration';
import { ConfigError } from './errors';
import { readSecrets } from './secrets';

export { ConfigError };

// The whole runtime configuration, read from the environment once at start-up.
// Every rule lives here; the rest of the code receives a typed, validated Config.

export type RunMode = 'development' | 'test' | 'production';
export type DatabaseEngine = 'sqlite' | 'postgres' | 'mysql' | 'mssql' | 'mongodb';
export type UserStoreKind = 'demo' | 'database';

export interface Config {
  env: RunMode;
  port: number;
  jwt: {
    accessSecret: string;
    refreshSecret: string;
    /** Access-token lifetime in seconds (JWT_EXPIRES_IN). */
    accessTtlSeconds: number;
    /** Refresh-token lifetime in seconds: fixed at 7 days by the specification. */
    refreshTtlSeconds: number;
    /** `iss` of every token this service signs, and required on every token it accepts (JWT_ISSUER). */
    issuer: string;
    /** `aud` of access tokens: who accepts them (JWT_AUDIENCE). Refresh tokens are addressed to the issuer. */
    audience: string;
  };
  database: {
    url: string;
    engine: DatabaseEngine;
    migrateOnStart: boolean;
    /** Bound on connecting and on each query, so an unreachable database fails fast. */
    timeoutMs: number;
    refreshTokenCleanupIntervalMs: number;
  };
  redisUrl: string | undefined;
  trustProxy: number;
  authRateLimit: { max: number; windowMs: number };
  /** Failed logins allowed per (account, client) and per account before that login is refused for the window. */
  loginThrottle: { pairFailures: number; accountFailures: number; windowMs: number };
  /** Refresh-token rotation (off by default: the specification keeps the stored record unchanged). */
  refreshRotation: { enabled: boolean; graceMs: number; sliding: boolean };
  /** The roles a user may hold (ROLES); `user` is given to new users, `admin` may manage users. */
  roles: string[];
  userStore: UserStoreKind;
  demoUser: { email: string; password: string; role: string };
  registrationEnabled: boolean;
  corsOrigins: string[];
  /** The service's public origin (PUBLIC_URL), e.g. https://api.example.com; undefined when not set. */
  publicUrl: string | undefined;
  /** Serve GET /openapi.json and GET /docs (API_DOCS): on by default outside production. */
  apiDocs: boolean;
  /** Shortest password accepted where a user chooses one (registration, password change). */
  passwordMinLength: number;
  cookieSecure: boolean;
  logLevel: string;
  bodyLimitBytes: number;
  /** argon2 computations at once, and how many may wait before logins are refused with 503. */
  passwordHashing: { concurrency: number; maxQueued: number };
  /** After SIGTERM, how long readiness answers 503 while connections are still accepted (0: none). */
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
  /** METRICS_PORT: Prometheus metrics on their own listener; undefined (the default) turns metrics off. */
  metricsPort: number | undefined;
  /** OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT set); the SDK itself reads the OTEL_* variables. */
  tracing: boolean;
  /** Things worth one warning at start-up (never containing a secret). */
  warnings: string[];
}

type Env = Record<string, string | undefined>;

const RUN_MODES: readonly RunMode[] = ['development', 'test', 'production'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const REFRESH_TTL_SECONDS = 7 * 24 * 3600;

/** A non-empty, trimmed value, or undefined when unset or blank. */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(name, `must be one of: ${allowed.join(', ')}`);
  return value as T;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = read(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(name, 'must be true or false');
}

function durationSeconds(env: Env, name: string, fallback: string): number {
  const seconds = parseDurationSeconds(read(env, name) ?? fallback);
  if (seconds === undefined) throw new ConfigError(name, 'must be a duration such as 15m, 1h, 7d, 900s or a number of seconds');
  return seconds;
}

// Node's timers take at most 2^31 - 1 ms (about 24.8 days); a longer delay silently becomes 1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration used as a timer delay, in milliseconds: bounded by what a Node timer can hold. With
 * `allowZero`, unset or `0` (`0s`, …) means none.
 */
function timerMs(env: Env, name: string, fallback: string, allowZero = false): number {
  const value = read(env, name);
  if (allowZero && (value ?? fallback).match(/^0+[smhd]?$/)) return 0;
  const ms = durationSeconds(env, name, fallback) * 1000;
  if (ms > MAX_TIMER_MS) throw new ConfigError(name, 'must be at most 24 days (the longest delay a Node timer holds)');
  return ms;
}

function byteSize(env: Env, name: string, fallback: string): number {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(read(env, name) ?? fallback);
  const bytes = match ? Number(match[1]) * { b: 1, kb: 1024, mb: 1024 * 1024 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'] : 0;
  if (bytes < 1 || bytes > 64 * 1024 * 1024) throw new ConfigError(name, 'must be a size such as 100kb or 1mb (at most 64mb)');
  return bytes;
}

const ENGINE_BY_SCHEME: Record<string, DatabaseEngine> = {
  'sqlite:': 'sqlite',
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
  'mssql:': 'mssql',
  'sqlserver:': 'mssql',
  'mongodb:': 'mongodb',
  'mongodb+srv:': 'mongodb',
};

function database(env: Env, mode: RunMode): { url: string; engine: DatabaseEngine } {
  const databaseUrl = read(env, 'DATABASE_URL');
  const mongoUri = read(env, 'MONGO_URI');
  if (databaseUrl && mongoUri && databaseUrl !== mongoUri) {
    throw new ConfigError('MONGO_URI', 'conflicts with DATABASE_URL: set only one of them');
  }
  const name = !databaseUrl && mongoUri ? 'MONGO_URI' : 'DATABASE_URL';
  const url = databaseUrl ?? mongoUri ?? (mode === 'test' ? 'sqlite::memory:' : 'sqlite:./data/app.sqlite');
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();
  const engine = scheme ? ENGINE_BY_SCHEME[scheme] : undefined;
  if (!engine) throw new ConfigError(name, `must start with one of: ${Object.keys(ENGINE_BY_SCHEME).join(' ')}`);
  if (name === 'MONGO_URI' && engine !== 'mongodb') throw new ConfigError(name, 'must be a mongodb:// or mongodb+srv:// URI');
  return { url, engine };
}

/** The access-token lifetime: the specification's forms reach up to 7d, so that is the ceiling. */
const MAX_ACCESS_TTL_SECONDS = 7 * 86_400;
const LONG_ACCESS_TTL_SECONDS = 3600;

function accessTtlSeconds(env: Env, mode: RunMode, warnings: string[]): number {
  const seconds = durationSeconds(env, 'JWT_EXPIRES_IN', '15m');
  if (seconds > MAX_ACCESS_TTL_SECONDS) throw new ConfigError('JWT_EXPIRES_IN', 'must be at most 7d (an access token cannot be revoked before it expires)');
  if (mode === 'production' && seconds > LONG_ACCESS_TTL_SECONDS) {
    warnings.push('JWT_EXPIRES_IN is above 1h: an access token stays valid that long after logout or a role change');
  }
  return seconds;
}

/** A token claim value (JWT_ISSUER, JWT_AUDIENCE): printable, no spaces, at most 200 characters. */
function claim(env: Env, name: string, fallback: string): string {
  const value = read(env, name) ?? fallback;
  if (!/^[\x21-\x7e]{1,200}$/.test(value)) throw new ConfigError(name, 'must be 1 to 200 printable characters without spaces');
  return value;
}

function publicUrl(env: Env): string | undefined {
  const value = read(env, 'PUBLIC_URL');
  if (value === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password || parsed.search || parsed.hash) {
    throw new ConfigError('PUBLIC_URL', 'must be the absolute http(s) URL clients use, such as https://api.example.com');
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** The documented demo password: never accepted in production (anyone who read the README can log in). */
export const DEFAULT_DEMO_PASSWORD = 'demo-password';

function demoUser(env: Env, mode: RunMode, userStore: UserStoreKind): Config['demoUser'] {
  const password = read(env, 'DEMO_USER_PASSWORD');
  if (mode === 'production' && userStore === 'demo' && (password === undefined || password === DEFAULT_DEMO_PASSWORD)) {
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

function roles(env: Env): string[] {
  const list = [...new Set((read(env, 'ROLES') ?? REQUIRED_ROLES.join(',')).split(',').map((role) => role.trim()).filter(Boolean))];
  if (!list.every((role) => /^[A-Za-z0-9_-]{1,64}$/.test(role))) {
    throw new ConfigError('ROLES', 'must be a comma-separated list of names made of letters, digits, - and _');
  }
  // New users get `user`; the user-management routes require `admin`.
  if (!REQUIRED_ROLES.every((role) => list.includes(role))) throw new ConfigError('ROLES', 'must include user and admin');
  return list;
}

function refreshRotation(env: Env): Config['refreshRotation'] {
  return {
    enabled: boolean(env, 'REFRESH_ROTATION', false),
    graceMs: timerMs(env, 'REFRESH_REUSE_GRACE', '10s', true),
    sliding: oneOf(env, 'REFRESH_EXPIRY', ['absolute', 'sliding'], 'absolute') === 'sliding',
  };
}

function loginThrottle(env: Env): Config['loginThrottle'] {
  const pairFailures = integer(env, 'LOGIN_THROTTLE_FAILURES', 5, 1, 1000);
  const accountFailures = integer(env, 'LOGIN_THROTTLE_ACCOUNT_FAILURES', 50, 1, 1_000_000);
  if (accountFailures < pairFailures) {
    // Below the pair limit, one address could lock the account for everyone: the very thing the pair limit prevents.
    throw new ConfigError('LOGIN_THROTTLE_ACCOUNT_FAILURES', 'must be at least LOGIN_THROTTLE_FAILURES');
  }
  return { pairFailures, accountFailures, windowMs: timerMs(env, 'LOGIN_THROTTLE_WINDOW', '15m') };
}

function origins(env: Env): string[] {
  const list = (read(env, 'CORS_ORIGINS') ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
  for (const origin of list) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigError('CORS_ORIGINS', 'must be a comma-separated list of origins such as https://app.example.com');
    }
  }
  return list;
}

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];

/**
 * Whether OpenTelemetry tracing is on: an OTLP endpoint is set (for all signals or for traces) and neither
 * OTEL_SDK_DISABLED nor OTEL_TRACES_EXPORTER=none turns it off. Read before anything else loads
 * (src/observability/tracing-preload.ts), so it is a plain function of the environment.
 */
export function tracingRequested(env: Env = process.env): boolean {
  if (!read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') && !read(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) return false;
  if (read(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  return read(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase() !== 'none';
}

/** The few OTEL_* rules worth stopping start-up for; the SDK reads (and warns about) the rest itself. */
function tracing(env: Env): boolean {
  if (!tracingRequested(env)) return false;
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const value = read(env, name);
    if (value !== undefined && !/^https?:\/\/[^/\s]+/i.test(value)) throw new ConfigError(name, 'must be an http:// or https:// URL');
  }
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const value = read(env, name);
    if (value !== undefined && !OTLP_PROTOCOLS.includes(value)) throw new ConfigError(name, `must be one of: ${OTLP_PROTOCOLS.join(', ')}`);
  }
  return true;
}

function metricsPort(env: Env, port: number): number | undefined {
  if (read(env, 'METRICS_PORT') === undefined) return undefined;
  const value = integer(env, 'METRICS_PORT', 0, 1, 65_535);
  if (value === port) throw new ConfigError('METRICS_PORT', 'must differ from PORT: metrics are never served on the public port');
  return value;
}

/** Reads and validates the configuration. Throws ConfigError on the first bad value. */
export function loadConfig(env: Env = process.env): Config {
  const warnings: string[] = [];
  const mode = oneOf(env, 'NODE_ENV', RUN_MODES, 'development');
  const userStore = oneOf<UserStoreKind>(env, 'USER_STORE', ['demo', 'database'], 'demo');
  if (mode === 'production' && userStore === 'demo') {
    warnings.push('USER_STORE=demo in production: the built-in demonstration user can log in');
  }
  const trustProxy = integer(env, 'TRUST_PROXY', 0, 0, 10);
  const ownUrl = publicUrl(env);
  if (mode === 'production' && trustProxy > 0 && !ownUrl) {
    warnings.push('TRUST_PROXY is set without PUBLIC_URL: the CSRF check takes the service origin from X-Forwarded-Host');
  }
  const issuer = claim(env, 'JWT_ISSUER', 'koa-api-service');
  const secrets = readSecrets(env, mode === 'production', warnings); // first: the most important message wins
  const roleList = roles(env);
  const demo = demoUser(env, mode, userStore);
  if (!roleList.includes(demo.role)) throw new ConfigError('DEMO_USER_ROLE', 'must be one of ROLES');
  const registrationEnabled = boolean(env, 'AUTH_REGISTRATION', false);
  if (registrationEnabled && userStore !== 'database') {
    throw new ConfigError('AUTH_REGISTRATION', 'needs USER_STORE=database');
  }
  const port = integer(env, 'PORT', mode === 'test' ? 3001 : 3000, 0, 65_535);
  return {
    env: mode,
    port,
    jwt: {
      ...secrets,
      accessTtlSeconds: accessTtlSeconds(env, mode, warnings),
      refreshTtlSeconds: REFRESH_TTL_SECONDS,
      issuer,
      audience: claim(env, 'JWT_AUDIENCE', issuer),
    },
    database: {
      ...database(env, mode),
      migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
      timeoutMs: timerMs(env, 'DATABASE_TIMEOUT', '5s'),
      refreshTokenCleanupIntervalMs: timerMs(env, 'REFRESH_TOKEN_CLEANUP_INTERVAL', '1h'),
    },
    redisUrl: read(env, 'REDIS_URL'),
    trustProxy,
    authRateLimit: {
      max: integer(env, 'AUTH_RATE_LIMIT_MAX', 10, 1, 1_000_000_000),
      windowMs: timerMs(env, 'AUTH_RATE_LIMIT_WINDOW', '15m'),
    },
    loginThrottle: loginThrottle(env),
    refreshRotation: refreshRotation(env),
    userStore,
    demoUser: demo,
    registrationEnabled,
    corsOrigins: origins(env),
    publicUrl: ownUrl,
    apiDocs: boolean(env, 'API_DOCS', mode !== 'production'),
    passwordMinLength: integer(env, 'PASSWORD_MIN_LENGTH', 12, 8, 128),
    roles: roleList,
    cookieSecure: boolean(env, 'COOKIE_SECURE', mode === 'production'),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, mode === 'test' ? 'silent' : 'info'),
    bodyLimitBytes: byteSize(env, 'BODY_LIMIT', '100kb'),
    passwordHashing: {
      concurrency: integer(env, 'PASSWORD_HASH_CONCURRENCY', DEFAULT_HASH_CONCURRENCY, 1, 64),
      maxQueued: integer(env, 'PASSWORD_HASH_QUEUE', DEFAULT_HASH_QUEUE, 0, 10_000),
    },
    shutdownDelayMs: timerMs(env, 'SHUTDOWN_DELAY', '0', true),
    shutdownTimeoutMs: timerMs(env, 'SHUTDOWN_TIMEOUT', '10s'),
    metricsPort: metricsPort(env, port),
    tracing: tracing(env),
    warnings,
  };
}
