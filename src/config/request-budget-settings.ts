import { ConfigError } from './errors';
import { integer, timerMs, type Env } from './readers';

/** The per-user request budget on authenticated routes (USER_RATE_LIMIT_*). */
export interface RequestBudgetSettings {
  /** Requests per window per signed-in user; 0 turns the budget off. */
  max: number;
  windowMs: number;
  /** Users with one of these roles are not counted (admins by default). */
  exemptRoles: string[];
}

/**
 * Read by loadConfig. On by default (600 per minute: ten a second, far above what a person's client sends),
 * off by default under NODE_ENV=test, where suites send many requests as one user; a test of the budget
 * sets it.
 */
export function requestBudgetSettings(env: Env, roles: readonly string[], testing: boolean): RequestBudgetSettings {
  // Set but empty: nobody is exempt. Unset: admins are.
  const given = env.USER_RATE_LIMIT_EXEMPT_ROLES;
  const exemptRoles = (given === undefined ? 'admin' : given).split(',').map((role) => role.trim()).filter(Boolean);
  const unknown = exemptRoles.find((role) => !roles.includes(role));
  if (unknown) throw new ConfigError('USER_RATE_LIMIT_EXEMPT_ROLES', `names ${unknown}, which is not one of ROLES`);
  return {
    max: integer(env, 'USER_RATE_LIMIT_MAX', testing ? 0 : 600, 0, 1_000_000_000),
    windowMs: timerMs(env, 'USER_RATE_LIMIT_WINDOW', '1m'),
    exemptRoles,
  };
}
