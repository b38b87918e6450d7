import { isIP } from 'node:net';
import { DEFAULT_HASH_CONCURRENCY, DEFAULT_HASH_QUEUE } from '../auth/hash-queue';
import {
  accessTtlSeconds,
  callerStateTtlMs,
  claim,
  demoUser,
  loginThrottle,
  reauthMaxAgeSeconds,
  refreshRotation,
  roles,
  type DemoUserSettings,
  type LoginThrottleSettings,
  type RefreshRotationSettings,
} from './auth-settings';
import { DEFAULT_LIST_SETTINGS, MAX_PAGE_OFFSET, type ListSettings } from '../stores/kit/pagination';
import { ConfigError } from './errors';
import { mailSettings, type MailSettings } from './mail-settings';
import { mfaSettings, type MfaSettings } from './mfa-settings';
import { oidcSettings, type OidcSettings } from './oidc-settings';
import { requestBudgetSettings, type RequestBudgetSettings } from './request-budget-settings';
import { passkeySettings, type PasskeySettings } from './passkey-settings';
import { boolean, byteSize, integer, oneOf, read, timerMs, type Env } from './readers';
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
  /** The listen address (HOST): loopback outside production, every interface in production (undefined). */
  host: string | undefined;
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
    /** Bound on each migration statement (MIGRATION_TIMEOUT), on a connection of its own. */
    migrationTimeoutMs: number;
    refreshTokenCleanupIntervalMs: number;
  };
  redisUrl: string | undefined;
  trustProxy: number;
  authRateLimit: { max: number; windowMs: number };
  /** The per-user request budget on authenticated routes (src/auth/request-budget.ts). */
  userRateLimit: RequestBudgetSettings;
  /** Failed logins allowed per (account, client) and per account before that login is refused for the window. */
  loginThrottle: LoginThrottleSettings;
  /** REAUTH_MAX_AGE in seconds: how recent the owner's proof must be for a change to the ways in. */
  reauthMaxAgeSeconds: number;
  /** Refresh-token rotation (off by default: the specification keeps the stored record unchanged). */
  refreshRotation: RefreshRotationSettings;
  /** AUTH_STATE_CACHE_TTL: how long a user's state read for authorisation serves later requests on this replica. */
  callerStateTtlMs: number;
  /** The roles a user may hold (ROLES); `user` is given to new users, `admin` may manage users. */
  roles: string[];
  userStore: UserStoreKind;
  demoUser: DemoUserSettings;
  registrationEnabled: boolean;
  corsOrigins: string[];
  /** The service's public origin (PUBLIC_URL), e.g. https://api.example.com; undefined when not set. */
  publicUrl: string | undefined;
  /** Outgoing mail and password reset by email: undefined without SMTP_URL (docs/accounts.md). */
  mail: MailSettings | undefined;
  /** Two-factor login (TOTP): undefined without MFA_ENCRYPTION_KEY (docs/accounts.md). */
  mfa: MfaSettings | undefined;
  /** Sign-in with OpenID Connect providers: undefined without OIDC_PROVIDERS (docs/authentication.md). */
  oidc: OidcSettings | undefined;
  /** Passkeys (WebAuthn): undefined unless PASSKEYS=true (docs/authentication.md). */
  passkeys: PasskeySettings | undefined;
  /** Serve GET /openapi.json and GET /docs (API_DOCS): on by default outside production. */
  apiDocs: boolean;
  /** Shortest password accepted where a user chooses one (registration, password change). */
  passwordMinLength: number;
  cookieSecure: boolean;
  logLevel: string;
  bodyLimitBytes: number;
  /** Lists: the deepest `offset` accepted (LIST_MAX_OFFSET), the most rows `?count=true` counts (LIST_COUNT_LIMIT), the most a search no index serves examines (LIST_SEARCH_SCAN_LIMIT). */
  lists: ListSettings;
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

const RUN_MODES: readonly RunMode[] = ['development', 'test', 'production'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const REFRESH_TTL_SECONDS = 7 * 24 * 3600;

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
  if (name === 'MONGO_URI' && engine !== 'mongodb')
    throw new ConfigError(name, 'must be a mongodb:// or mongodb+srv:// URI');
  return { url, engine };
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
  if (
    !parsed ||
    !['http:', 'https:'].includes(parsed.protocol) ||
    parsed.username ||
    parsed.password ||
    parsed.search ||
    parsed.hash
  ) {
    throw new ConfigError(
      'PUBLIC_URL',
      'must be the absolute http(s) URL clients use, such as https://api.example.com',
    );
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

function origins(env: Env): string[] {
  const list = (read(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of list) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigError(
        'CORS_ORIGINS',
        'must be a comma-separated list of origins such as https://app.example.com',
      );
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
    if (value !== undefined && !/^https?:\/\/[^/\s]+/i.test(value))
      throw new ConfigError(name, 'must be an http:// or https:// URL');
  }
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const value = read(env, name);
    if (value !== undefined && !OTLP_PROTOCOLS.includes(value))
      throw new ConfigError(name, `must be one of: ${OTLP_PROTOCOLS.join(', ')}`);
  }
  return true;
}

function metricsPort(env: Env, port: number): number | undefined {
  if (read(env, 'METRICS_PORT') === undefined) return undefined;
  const value = integer(env, 'METRICS_PORT', 0, 1, 65_535);
  if (value === port)
    throw new ConfigError('METRICS_PORT', 'must differ from PORT: metrics are never served on the public port');
  return value;
}

/** Reads and validates the configuration. Throws ConfigError on the first bad value. */
/**
 * Where the server listens. A laptop running `make run` or `npm run dev` should not offer the service to the
 * whole network, so outside production it is loopback; in production (the image) every interface, which a
 * container needs to be reachable at all. HOST overrides either: an IP address or a host name.
 */
function listenHost(env: Env, mode: RunMode): string | undefined {
  const value = read(env, 'HOST');
  if (value === undefined) return mode === 'production' ? undefined : '127.0.0.1';
  if (!isIP(value) && !/^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/i.test(value)) {
    throw new ConfigError('HOST', 'must be an IP address (0.0.0.0, ::, 127.0.0.1) or a host name');
  }
  return value;
}

/** What production without a shared store counts on each replica alone (docs/operations.md). */
export const PER_REPLICA_WITHOUT_REDIS =
  'REDIS_URL is not set: each replica counts these limits on its own, so N replicas allow N times as much: ' +
  'the auth budget (AUTH_RATE_LIMIT_MAX per AUTH_RATE_LIMIT_WINDOW per client), the login throttle (LOGIN_THROTTLE_FAILURES per account and client, ' +
  'LOGIN_THROTTLE_ACCOUNT_FAILURES per account) and wrong second-factor codes (LOGIN_THROTTLE_FAILURES per user); set REDIS_URL to share them';

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
    warnings.push(
      'TRUST_PROXY is set without PUBLIC_URL: the CSRF check takes the service origin from X-Forwarded-Host',
    );
  }
  if (mode === 'production' && !read(env, 'REDIS_URL')) warnings.push(PER_REPLICA_WITHOUT_REDIS);
  const issuer = claim(env, 'JWT_ISSUER', 'koa-api-service');
  const secrets = readSecrets(env, mode === 'production', warnings); // first: the most important message wins
  const roleList = roles(env);
  const demo = demoUser(env, mode === 'production', userStore === 'demo');
  if (!roleList.includes(demo.role)) throw new ConfigError('DEMO_USER_ROLE', 'must be one of ROLES');
  const registrationEnabled = boolean(env, 'AUTH_REGISTRATION', false);
  if (registrationEnabled && userStore !== 'database') {
    throw new ConfigError('AUTH_REGISTRATION', 'needs USER_STORE=database');
  }
  const port = integer(env, 'PORT', mode === 'test' ? 3001 : 3000, 0, 65_535);
  const store = database(env, mode);
  return {
    env: mode,
    port,
    host: listenHost(env, mode),
    jwt: {
      ...secrets,
      accessTtlSeconds: accessTtlSeconds(env, mode === 'production', warnings),
      refreshTtlSeconds: REFRESH_TTL_SECONDS,
      issuer,
      audience: claim(env, 'JWT_AUDIENCE', issuer),
    },
    database: {
      ...store,
      migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
      timeoutMs: timerMs(env, 'DATABASE_TIMEOUT', '5s'),
      migrationTimeoutMs: timerMs(env, 'MIGRATION_TIMEOUT', '10m'),
      refreshTokenCleanupIntervalMs: timerMs(env, 'REFRESH_TOKEN_CLEANUP_INTERVAL', '1h'),
    },
    redisUrl: read(env, 'REDIS_URL'),
    trustProxy,
    authRateLimit: {
      max: integer(env, 'AUTH_RATE_LIMIT_MAX', 10, 1, 1_000_000_000),
      windowMs: timerMs(env, 'AUTH_RATE_LIMIT_WINDOW', '15m'),
    },
    userRateLimit: requestBudgetSettings(env, roleList, {
      testing: mode === 'test',
      oneConnection: store.engine === 'sqlite',
    }),
    loginThrottle: loginThrottle(env),
    reauthMaxAgeSeconds: reauthMaxAgeSeconds(env),
    refreshRotation: refreshRotation(env, REFRESH_TTL_SECONDS),
    callerStateTtlMs: callerStateTtlMs(env),
    userStore,
    demoUser: demo,
    registrationEnabled,
    corsOrigins: origins(env),
    publicUrl: ownUrl,
    mail: mailSettings(env, ownUrl, userStore),
    mfa: mfaSettings(env, mode === 'production', userStore, ownUrl, issuer),
    oidc: oidcSettings(env, mode === 'production', userStore, ownUrl, registrationEnabled),
    passkeys: passkeySettings(env, mode === 'production', userStore, ownUrl),
    apiDocs: boolean(env, 'API_DOCS', mode !== 'production'),
    passwordMinLength: integer(env, 'PASSWORD_MIN_LENGTH', 12, 8, 128),
    roles: roleList,
    cookieSecure: boolean(env, 'COOKIE_SECURE', mode === 'production'),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, mode === 'test' ? 'silent' : 'info'),
    bodyLimitBytes: byteSize(env, 'BODY_LIMIT', '100kb'),
    lists: {
      maxOffset: integer(env, 'LIST_MAX_OFFSET', DEFAULT_LIST_SETTINGS.maxOffset, 0, MAX_PAGE_OFFSET),
      countLimit: integer(env, 'LIST_COUNT_LIMIT', DEFAULT_LIST_SETTINGS.countLimit, 1, 1_000_000),
      searchScanLimit: integer(env, 'LIST_SEARCH_SCAN_LIMIT', DEFAULT_LIST_SETTINGS.searchScanLimit, 10, 1_000_000),
    },
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
