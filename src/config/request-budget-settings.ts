import { ConfigError } from './errors';
import { integer, timerMs, type Env } from './readers';

/** The per-user request budget on authenticated routes (USER_RATE_LIMIT_*). */
export interface RequestBudgetSettings {
  /** Requests per window per signed-in user; 0 turns the budget off. */
  max: number;
  windowMs: number;
  /** Users with one of these roles are not counted (admins by default); their requests are not held to turns either. */
  exemptRoles: string[];
  /** Requests of one user that run at once in a process (USER_CONCURRENCY_MAX); 0: no limit. */
  concurrency: number;
  /** Searches (`?q=`) of all callers that run at once in a process (SEARCH_CONCURRENCY_MAX); 0: no limit. */
  searchConcurrency: number;
}

/** Requests of one user at once by default: 4 of a pool's 10 connections; on SQLite's one connection, 1. */
const CONCURRENCY_POOLED = 4;
const CONCURRENCY_ONE_CONNECTION = 1;
/** Searches at once by default: 2 of a pool's 10 connections (the flood bench: as many searches answered as with 4, another user's page twice as fast), the other 8 kept for everything else; on SQLite, 1. */
const SEARCHES_POOLED = 2;
const SEARCHES_ONE_CONNECTION = 1;

/**
 * Read by loadConfig. On by default (600 per minute: ten a second, far above what a person's client sends;
 * a few requests of a user at once, the rest waiting their turn), off by default under NODE_ENV=test, where
 * suites send many requests as one user, some of them racing on purpose; a test of the budget sets it.
 * On SQLite the database runs one statement at a time whatever the user sends, so one turn per user costs
 * them nothing and keeps the connection's queue shared between users rather than first come first served.
 */
export function requestBudgetSettings(
  env: Env,
  roles: readonly string[],
  store: { testing: boolean; oneConnection: boolean },
): RequestBudgetSettings {
  const { testing } = store;
  // Set but empty: nobody is exempt. Unset: admins are.
  const given = env.USER_RATE_LIMIT_EXEMPT_ROLES;
  const exemptRoles = (given === undefined ? 'admin' : given)
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  const unknown = exemptRoles.find((role) => !roles.includes(role));
  if (unknown) throw new ConfigError('USER_RATE_LIMIT_EXEMPT_ROLES', `names ${unknown}, which is not one of ROLES`);
  return {
    max: integer(env, 'USER_RATE_LIMIT_MAX', testing ? 0 : 600, 0, 1_000_000_000),
    windowMs: timerMs(env, 'USER_RATE_LIMIT_WINDOW', '1m'),
    exemptRoles,
    concurrency: integer(
      env,
      'USER_CONCURRENCY_MAX',
      testing ? 0 : store.oneConnection ? CONCURRENCY_ONE_CONNECTION : CONCURRENCY_POOLED,
      0,
      10_000,
    ),
    searchConcurrency: integer(
      env,
      'SEARCH_CONCURRENCY_MAX',
      testing ? 0 : store.oneConnection ? SEARCHES_ONE_CONNECTION : SEARCHES_POOLED,
      0,
      10_000,
    ),
  };
}
