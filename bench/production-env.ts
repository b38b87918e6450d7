import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_CREDENTIALS } from './scenarios';

/**
 * The GLIBC_TUNABLES the production image sets (its Dockerfile's ENV), so the bench and the soak run the
 * service with the same malloc settings as production and the two cannot drift apart. See
 * docs/performance.md ("Memory") for why the image caps glibc at one malloc arena. BENCH_GLIBC_TUNABLES
 * overrides it (empty: glibc's defaults), to measure what the setting changes.
 */
export function productionMallocTunables(): string {
  if (process.env.BENCH_GLIBC_TUNABLES !== undefined) return process.env.BENCH_GLIBC_TUNABLES;
  const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
  const value = /^\s*GLIBC_TUNABLES=(\S+)/m.exec(dockerfile)?.[1];
  if (!value)
    throw new Error("Dockerfile sets no GLIBC_TUNABLES: the bench cannot run with the image's malloc settings");
  return value;
}

/**
 * Production mode, fresh strong secrets, embedded SQLite in a scratch directory, logging at info; with
 * BENCH_METRICS, Prometheus metrics on (bench-server.ts puts their listener on a free port).
 */
export function serviceEnvironment(databaseFile: string, dist: string, metrics: boolean): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64url'),
    REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64url'),
    DATABASE_URL: `sqlite:${databaseFile}`,
    LOG_LEVEL: 'info',
    DEMO_USER_PASSWORD: DEMO_CREDENTIALS.password,
    // The load comes from one address: without this the shared auth limit (10 per 15 minutes) ends the run.
    AUTH_RATE_LIMIT_MAX: '1000000000',
    // The protected GET comes from one user: the per-user budget (600 a minute) would end it. Raised, not
    // turned off, so its counting is part of what the protected GET costs.
    USER_RATE_LIMIT_MAX: '1000000000',
    // The same for the per-account login throttle: eight logins at once from one address to one account are
    // more than its five-at-once (docs/security.md); the bench measures the login path, not the throttle.
    LOGIN_THROTTLE_FAILURES: '1000',
    LOGIN_THROTTLE_ACCOUNT_FAILURES: '1000000',
    // Plain HTTP on loopback: a Secure cookie could not be set over it (production's default is Secure).
    COOKIE_SECURE: 'false',
    BENCH_DIST: dist,
    // The image's malloc settings (Dockerfile), so the memory figures are the production image's.
    GLIBC_TUNABLES: productionMallocTunables(),
    ...(metrics ? { METRICS_PORT: '9464' } : {}),
  };
}
