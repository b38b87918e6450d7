import { randomBytes } from 'node:crypto';
import { parseDurationSeconds } from './duration';

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
  userStore: UserStoreKind;
  demoUser: { email: string; password: string; role: string };
  registrationEnabled: boolean;
  corsOrigins: string[];
  cookieSecure: boolean;
  logLevel: string;
  bodyLimitBytes: number;
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

/** A configuration problem. The message names the variable and never contains its value. */
export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const RUN_MODES: readonly RunMode[] = ['development', 'test', 'production'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const MIN_SECRET_BYTES = 32;
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

function secrets(env: Env, mode: RunMode, warnings: string[]): { accessSecret: string; refreshSecret: string } {
  let accessSecret = read(env, 'JWT_SECRET');
  let refreshSecret = read(env, 'REFRESH_TOKEN_SECRET');
  if (mode === 'production') {
    if (!accessSecret) throw new ConfigError('JWT_SECRET', 'is required in production');
    if (!refreshSecret) throw new ConfigError('REFRESH_TOKEN_SECRET', 'is required in production');
  } else if (!accessSecret || !refreshSecret) {
    warnings.push(
      'JWT_SECRET or REFRESH_TOKEN_SECRET is not set: using a random secret for this process only; tokens die with it',
    );
    accessSecret ??= randomBytes(48).toString('base64url');
    refreshSecret ??= randomBytes(48).toString('base64url');
  }
  for (const [name, value] of [['JWT_SECRET', accessSecret], ['REFRESH_TOKEN_SECRET', refreshSecret]] as const) {
    if (Buffer.byteLength(value) < MIN_SECRET_BYTES) throw new ConfigError(name, `must be at least ${MIN_SECRET_BYTES} bytes long`);
  }
  if (accessSecret === refreshSecret) throw new ConfigError('REFRESH_TOKEN_SECRET', 'must differ from JWT_SECRET');
  return { accessSecret, refreshSecret };
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
  const demoUser = {
    email: (read(env, 'DEMO_USER_EMAIL') ?? 'demo@example.com').toLowerCase(),
    password: read(env, 'DEMO_USER_PASSWORD') ?? 'demo-password',
    role: read(env, 'DEMO_USER_ROLE') ?? 'user',
  };
  if (mode === 'production' && userStore === 'demo') {
    warnings.push('USER_STORE=demo in production: the built-in demonstration user can log in');
  }
  const registrationEnabled = boolean(env, 'AUTH_REGISTRATION', false);
  if (registrationEnabled && userStore !== 'database') {
    throw new ConfigError('AUTH_REGISTRATION', 'needs USER_STORE=database');
  }
  const port = integer(env, 'PORT', mode === 'test' ? 3001 : 3000, 0, 65_535);
  return {
    env: mode,
    port,
    jwt: {
      ...secrets(env, mode, warnings),
      accessTtlSeconds: durationSeconds(env, 'JWT_EXPIRES_IN', '15m'),
      refreshTtlSeconds: REFRESH_TTL_SECONDS,
    },
    database: {
      ...database(env, mode),
      migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
      timeoutMs: timerMs(env, 'DATABASE_TIMEOUT', '5s'),
      refreshTokenCleanupIntervalMs: timerMs(env, 'REFRESH_TOKEN_CLEANUP_INTERVAL', '1h'),
    },
    redisUrl: read(env, 'REDIS_URL'),
    trustProxy: integer(env, 'TRUST_PROXY', 0, 0, 10),
    authRateLimit: {
      max: integer(env, 'AUTH_RATE_LIMIT_MAX', 10, 1, 1_000_000_000),
      windowMs: timerMs(env, 'AUTH_RATE_LIMIT_WINDOW', '15m'),
    },
    userStore,
    demoUser,
    registrationEnabled,
    corsOrigins: origins(env),
    cookieSecure: boolean(env, 'COOKIE_SECURE', mode === 'production'),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, mode === 'test' ? 'silent' : 'info'),
    bodyLimitBytes: byteSize(env, 'BODY_LIMIT', '100kb'),
    shutdownDelayMs: timerMs(env, 'SHUTDOWN_DELAY', '0', true),
    shutdownTimeoutMs: timerMs(env, 'SHUTDOWN_TIMEOUT', '10s'),
    metricsPort: metricsPort(env, port),
    tracing: tracing(env),
    warnings,
  };
}
