import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config';
import { configError } from '../support/config-error';
import { parseDurationSeconds } from '../../src/config/duration';

// Random secrets, as `npm run secret` and `openssl rand -base64 48` make them (production takes only those).
const STRONG = {
  JWT_SECRET: randomBytes(32).toString('base64'),
  REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64url'),
};
/** Production with strong secrets and a changed demo password: the smallest production start. */
const PRODUCTION = { NODE_ENV: 'production', ...STRONG, DEMO_USER_PASSWORD: 'a-changed-demo-password' };

describe('configuration', () => {
  it('defaults: development on port 3000, 15 minute tokens, SQLite file, limit 10 per 15 minutes', () => {
    const config = loadConfig({});
    expect(config.env).toBe('development');
    expect(config.port).toBe(3000);
    expect(config.jwt.accessTtlSeconds).toBe(900);
    expect(config.jwt.refreshTtlSeconds).toBe(604_800);
    expect(config.database).toMatchObject({ engine: 'sqlite', url: 'sqlite:./data/app.sqlite', migrateOnStart: true });
    expect(config.authRateLimit).toEqual({ max: 10, windowMs: 900_000 });
    expect(config.trustProxy).toBe(0);
    expect(config.userStore).toBe('demo');
    expect(config.cookieSecure).toBe(false);
    expect(config.logLevel).toBe('info');
  });

  it('test mode: port 3001, in-memory SQLite, silent logs unless LOG_LEVEL', () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    expect(config.port).toBe(3001);
    expect(config.database.url).toBe('sqlite::memory:');
    expect(config.logLevel).toBe('silent');
    expect(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(loadConfig({ NODE_ENV: 'test', PORT: '4000' }).port).toBe(4000);
  });

  it('development and test make random per-process secrets, with one warning', () => {
    const first = loadConfig({});
    const second = loadConfig({});
    expect(first.jwt.accessSecret).not.toBe(second.jwt.accessSecret);
    expect(first.jwt.accessSecret).not.toBe(first.jwt.refreshSecret);
    expect(Buffer.byteLength(first.jwt.accessSecret)).toBeGreaterThanOrEqual(32);
    expect(first.warnings.filter((w) => /random secret/.test(w))).toHaveLength(1);
    expect(loadConfig(STRONG).warnings).toEqual([]);
  });

  it('production requires both secrets, at least 32 bytes, and different', () => {
    expect(configError({ NODE_ENV: 'production' }).variable).toBe('JWT_SECRET');
    expect(configError({ NODE_ENV: 'production', JWT_SECRET: STRONG.JWT_SECRET }).variable).toBe(
      'REFRESH_TOKEN_SECRET',
    );
    const weak = configError({ NODE_ENV: 'production', ...STRONG, JWT_SECRET: 'short-but-secret-value' });
    expect(weak.variable).toBe('JWT_SECRET');
    expect(weak.message).not.toContain('short-but-secret-value');
    const same = configError({
      NODE_ENV: 'production',
      JWT_SECRET: STRONG.JWT_SECRET,
      REFRESH_TOKEN_SECRET: STRONG.JWT_SECRET,
    });
    expect(same.message).toMatch(/REFRESH_TOKEN_SECRET must differ from JWT_SECRET/);
    expect(same.message).not.toContain(STRONG.JWT_SECRET);
    expect(loadConfig(PRODUCTION).cookieSecure).toBe(true);
  });

  it('a weak secret stops start-up in development too', () => {
    expect(configError({ JWT_SECRET: 'x'.repeat(31) }).variable).toBe('JWT_SECRET');
  });

  it.each([
    ['15m', 900],
    ['1h', 3600],
    ['7d', 604_800],
    ['900s', 900],
    ['120', 120],
  ])('JWT_EXPIRES_IN=%s is %i seconds', (value, seconds) => {
    expect(loadConfig({ JWT_EXPIRES_IN: value }).jwt.accessTtlSeconds).toBe(seconds);
  });

  it.each(['15 minutes', '1w', '-5', '0', '1.5h', 'abc', '15M'])('JWT_EXPIRES_IN=%s stops start-up', (value) => {
    const error = configError({ JWT_EXPIRES_IN: value });
    expect(error.variable).toBe('JWT_EXPIRES_IN');
    if (value.length > 3) expect(error.message).not.toContain(value); // short values occur in the hint text
  });

  it.each([
    ['NODE_ENV', 'staging'],
    ['PORT', '70000'],
    ['PORT', 'eighty'],
    ['TRUST_PROXY', '-1'],
    ['AUTH_RATE_LIMIT_MAX', '0'],
    ['AUTH_RATE_LIMIT_WINDOW', 'soon'],
    ['USER_STORE', 'ldap'],
    ['COOKIE_SECURE', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['CORS_ORIGINS', 'not a url'],
    ['CORS_ORIGINS', 'https://app.example.com/path'],
    ['DATABASE_URL', 'oracle://db.example.com/app'],
    ['MONGO_URI', 'postgres://db/app'],
    ['BODY_LIMIT', 'huge'],
    ['AUTH_REGISTRATION', 'true'],
  ])('%s=%s stops start-up naming the variable', (name, value) => {
    expect(configError({ [name]: value }).variable).toBe(name);
  });

  it('the database engine comes from the URL scheme, or MONGO_URI', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@localhost:5432/app' }).database.engine).toBe('postgres');
    expect(loadConfig({ DATABASE_URL: 'mysql://u:p@localhost/app' }).database.engine).toBe('mysql');
    expect(loadConfig({ DATABASE_URL: 'mssql://sa:p@localhost:1433/app' }).database.engine).toBe('mssql');
    expect(loadConfig({ DATABASE_URL: 'mongodb+srv://u:p@cluster.example.com/app' }).database.engine).toBe('mongodb');
    expect(loadConfig({ MONGO_URI: 'mongodb://localhost:27017/app' }).database).toMatchObject({
      engine: 'mongodb',
      url: 'mongodb://localhost:27017/app',
    });
    expect(configError({ DATABASE_URL: 'postgres://a/b', MONGO_URI: 'mongodb://c/d' }).variable).toBe('MONGO_URI');
  });

  it('lists, flags and numbers are parsed', () => {
    const config = loadConfig({
      CORS_ORIGINS: 'https://a.example.com, http://localhost:5173',
      TRUST_PROXY: '2',
      COOKIE_SECURE: 'true',
      AUTH_RATE_LIMIT_MAX: '100',
      AUTH_RATE_LIMIT_WINDOW: '1m',
      USER_STORE: 'database',
      AUTH_REGISTRATION: 'true',
      BODY_LIMIT: '1mb',
      PASSWORD_HASH_CONCURRENCY: '3',
      PASSWORD_HASH_QUEUE: '0',
    });
    expect(config.corsOrigins).toEqual(['https://a.example.com', 'http://localhost:5173']);
    expect(config.trustProxy).toBe(2);
    expect(config.cookieSecure).toBe(true);
    expect(config.authRateLimit).toEqual({ max: 100, windowMs: 60_000 });
    expect(config.registrationEnabled).toBe(true);
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.passwordHashing).toEqual({ concurrency: 3, maxQueued: 0 });
  });

  it('SHUTDOWN_DELAY is none by default, a duration otherwise', () => {
    expect(loadConfig({}).shutdownDelayMs).toBe(0);
    expect(loadConfig({ SHUTDOWN_DELAY: '0' }).shutdownDelayMs).toBe(0);
    expect(loadConfig({ SHUTDOWN_DELAY: '5s' }).shutdownDelayMs).toBe(5000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT: '30' }).shutdownTimeoutMs).toBe(30_000);
    expect(configError({ SHUTDOWN_DELAY: 'soon' }).variable).toBe('SHUTDOWN_DELAY');
  });

  it('timer settings longer than a Node timer holds (about 24.8 days) stop start-up', () => {
    expect(loadConfig({ REFRESH_TOKEN_CLEANUP_INTERVAL: '24d' }).database.refreshTokenCleanupIntervalMs).toBe(
      24 * 86_400_000,
    );
    for (const name of [
      'REFRESH_TOKEN_CLEANUP_INTERVAL',
      'DATABASE_TIMEOUT',
      'AUTH_RATE_LIMIT_WINDOW',
      'SHUTDOWN_DELAY',
      'SHUTDOWN_TIMEOUT',
    ]) {
      expect(configError({ [name]: '30d' }).variable).toBe(name);
    }
  });

  it('METRICS_PORT: off when unset, a port otherwise, never the public one', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(configError({ METRICS_PORT: '3000' }).message).toBe(
      'Invalid configuration: METRICS_PORT must differ from PORT: metrics are never served on the public port',
    );
    expect(configError({ METRICS_PORT: 'abc' }).variable).toBe('METRICS_PORT');
    expect(configError({ METRICS_PORT: '0' }).variable).toBe('METRICS_PORT');
  });

  it('tracing: on with an OTLP endpoint, unless the SDK or the traces exporter is switched off', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig({}).tracing).toBe(false);
    expect(loadConfig(endpoint).tracing).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' }).tracing).toBe(true);
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing).toBe(false);
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBe(false);
    for (const protocol of ['http/protobuf', 'http/json', 'grpc']) {
      expect(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol }).tracing).toBe(true);
    }
    expect(configError({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }).variable).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL',
    );
    expect(configError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).variable).toBe('OTEL_EXPORTER_OTLP_ENDPOINT');
    // Without an endpoint the other OTEL_* variables are not this service's business.
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }).tracing).toBe(false);
  });

  it('production with the demo user store warns', () => {
    expect(loadConfig(PRODUCTION).warnings.join()).toMatch(/demo/);
  });

  it('parseDurationSeconds accepts exactly the documented forms', () => {
    expect(parseDurationSeconds(' 2d ')).toBe(172_800);
    expect(parseDurationSeconds('')).toBeUndefined();
    expect(parseDurationSeconds('1e3')).toBeUndefined();
  });
});

describe('HOST, the listen address', () => {
  it('is loopback outside production, every interface in production, and HOST overrides either', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({ HOST: 'localhost' }).host).toBe('localhost');
    expect(loadConfig(PRODUCTION).host).toBeUndefined(); // Node's default: every interface
  });

  it.each(['0.0.0.0:3000', 'http://0.0.0.0', 'a b', '-x'])('refuses %j, naming HOST', (value) => {
    expect(() => loadConfig({ HOST: value })).toThrow(/HOST/);
  });
});
