import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_CREDENTIALS } from './scenarios';

/**
 * A variable the production image sets (its Dockerfile's last stage's ENV), quoted or not, unless `override`
 * (a BENCH_ variable, empty for the default) replaces it; a Dockerfile without it stops the run.
 */
function imageVariable(name: string, override: string | undefined): string {
  if (override !== undefined) return override;
  const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
  const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const match = new RegExp(`^\\s*(?:ENV\\s+)?${name}=(?:"([^"]*)"|(\\S+))`, 'm').exec(runtimeStage);
  if (!match) throw new Error(`Dockerfile sets no ${name}: the bench cannot run with the image's runtime settings`);
  return match[1] ?? match[2]!;
}

/**
 * The malloc settings and node flags the production image runs the service with (GLIBC_TUNABLES and
 * NODE_OPTIONS in its Dockerfile's ENV), so the bench and the soak measure the image's process and the two
 * cannot drift apart. See docs/performance.md ("Memory") for why the image sets each. BENCH_GLIBC_TUNABLES and
 * BENCH_NODE_OPTIONS override them (empty: the defaults), to measure what a setting changes.
 */
export function productionRuntime(): { GLIBC_TUNABLES: string; NODE_OPTIONS: string } {
  return {
    GLIBC_TUNABLES: imageVariable('GLIBC_TUNABLES', process.env.BENCH_GLIBC_TUNABLES),
    NODE_OPTIONS: imageVariable('NODE_OPTIONS', process.env.BENCH_NODE_OPTIONS),
  };
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
    // The image's malloc settings and node flags (Dockerfile), so the memory figures are the production image's.
    ...productionRuntime(),
    ...(metrics ? { METRICS_PORT: '9464' } : {}),
  };
}
