import path from 'node:path';
import type { Dialect, Options } from 'sequelize';
import { ConfigError } from '../../config/errors';
import type { Logger } from '../../logger';
import { describeLocation } from '../describe-location';
import { mysqlStatementBudget } from './statement-budget';

export type SqlEngine = 'sqlite' | 'postgres' | 'mysql' | 'mssql';

export interface SqlConnectionSettings {
  options: Options;
  /** Engine and location for logs; never the password. */
  description: string;
  inMemory: boolean;
}

const DIALECT: Record<SqlEngine, Dialect> = { sqlite: 'sqlite', postgres: 'postgres', mysql: 'mysql', mssql: 'mssql' };
const DEFAULT_PORT: Record<Exclude<SqlEngine, 'sqlite'>, number> = { postgres: 5432, mysql: 3306, mssql: 1433 };

/** `sqlite::memory:`, `sqlite:relative/file.sqlite`, `sqlite:/abs/file.sqlite` or `sqlite:///abs/file.sqlite`. */
function sqliteStorage(url: string): string {
  const rest = url.slice('sqlite:'.length);
  if (rest === ':memory:' || rest === '' || rest === '//:memory:') return ':memory:';
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

/**
 * A true/false connection flag. Anything else stops start-up: `?encrypt=ture` or `?ssl=maybe` read as
 * false would turn TLS off without a word.
 */
function flag(params: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = params.get(name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError('DATABASE_URL', `?${name} must be true or false`);
}

/** libpq's sslmode names, and `no-verify` (encrypt without checking the certificate). */
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/** TLS for PostgreSQL from `sslmode` (libpq's names) or `ssl=true`. */
function postgresSsl(params: URLSearchParams): object | undefined {
  const given = params.get('sslmode');
  if (given !== null && !SSL_MODES.includes(given))
    throw new ConfigError('DATABASE_URL', `?sslmode must be one of: ${SSL_MODES.join(', ')}`);
  const mode = given ?? (flag(params, 'ssl', false) ? 'verify-full' : 'disable');
  if (mode === 'disable' || mode === 'prefer' || mode === 'allow') return undefined;
  // `no-verify` encrypts without checking the certificate (managed databases with private CAs, tests).
  return { rejectUnauthorized: mode !== 'no-verify' };
}

/**
 * Turns a DATABASE_URL into Sequelize options with every timeout bounded by `timeoutMs`, so an unreachable
 * or stalled server fails a request within seconds instead of hanging it:
 * - pool.acquire: waiting for a free pooled connection;
 * - connect timeouts: opening a TCP/TLS connection and logging in;
 * - the statement budget, so a statement past it is stopped and frees its connection: pg statement_timeout
 *   server-side + query_timeout client-side; tedious requestTimeout; MariaDB max_statement_time (MySQL
 *   max_execution_time) set on each session (statement-budget.ts; SQLite's interrupt is set up there too).
 *   The store guard (src/stores/guard.ts) bounds every call on every engine anyway.
 */
export function sqlConnectionSettings(
  url: string,
  engine: SqlEngine,
  timeoutMs: number,
  logger: Logger,
): SqlConnectionSettings {
  const common: Options = {
    dialect: DIALECT[engine],
    // SQL text at trace level only; values are bound parameters and never logged.
    logging: (sql: string) => logger.trace({ sql }, 'sql'),
    define: { underscored: true, freezeTableName: true },
    timezone: '+00:00',
  };

  if (engine === 'sqlite') {
    const storage = sqliteStorage(url);
    const inMemory = storage === ':memory:';
    return {
      // In memory, Sequelize keeps one shared connection, so every query sees the same database.
      options: {
        ...common,
        storage: inMemory ? ':memory:' : path.resolve(storage),
        pool: { max: 1, min: 0, idle: 10_000 },
      },
      description: inMemory ? 'sqlite (in memory)' : `sqlite ${storage}`,
      inMemory,
    };
  }

  const parsed = new URL(url);
  const params = parsed.searchParams;
  const base: Options = {
    ...common,
    host: decodeURIComponent(parsed.hostname.replace(/^\[(.*)\]$/, '$1')),
    port: parsed.port ? Number(parsed.port) : DEFAULT_PORT[engine],
    username: decodeURIComponent(parsed.username) || undefined,
    password: decodeURIComponent(parsed.password) || undefined,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || undefined,
    pool: { max: 10, min: 0, acquire: timeoutMs, idle: 10_000, evict: 1_000 },
  };

  const dialectOptions: Record<string, unknown> = {};
  if (engine === 'postgres') {
    Object.assign(dialectOptions, {
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      query_timeout: timeoutMs,
      keepAlive: true,
      application_name: params.get('application_name') ?? 'koa-api-service',
    });
    const ssl = postgresSsl(params);
    if (ssl) dialectOptions.ssl = ssl;
  } else if (engine === 'mysql') {
    Object.assign(dialectOptions, { connectTimeout: timeoutMs, charset: 'utf8mb4', enableKeepAlive: true });
    if (flag(params, 'ssl', false))
      dialectOptions.ssl = { rejectUnauthorized: !flag(params, 'sslAllowInvalidCertificates', false) };
    base.hooks = mysqlStatementBudget(timeoutMs);
  } else {
    // tedious (SQL Server): connection options live under dialectOptions.options. Encryption is on by default
    // (as in tedious); a server with a self-signed certificate (the official container) needs
    // ?trustServerCertificate=true.
    const options: Record<string, unknown> = {
      encrypt: flag(params, 'encrypt', true),
      trustServerCertificate: flag(params, 'trustServerCertificate', false),
      connectTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      cancelTimeout: Math.min(timeoutMs, 5_000),
      appName: 'koa-api-service',
    };
    const instanceName = params.get('instanceName');
    if (instanceName) options.instanceName = instanceName;
    dialectOptions.options = options;
  }

  return {
    options: { ...base, dialectOptions },
    description: `${engine} ${describeLocation(url).replace(/^[^:]+:\/\//, '')}`,
    inMemory: false,
  };
}
