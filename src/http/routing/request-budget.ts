import type { ParameterizedContext } from 'koa';
import type { RequestBudget, BudgetTaken } from '../../auth/request-budget';
import type { AuthUser } from '../../auth/tokens';
import type { Logger } from '../../logger';
import { HttpError } from '../errors';
import type { RequestState } from './route';

const OUTAGE_LOG_INTERVAL_MS = 10_000;

/** Checks the caller's budget; throws the 429, or sets the counters on the answer. */
export type Admission = (ctx: ParameterizedContext<RequestState>, caller: AuthUser) => void | Promise<void>;

function answer(ctx: ParameterizedContext<RequestState>, taken: BudgetTaken): void {
  const { res } = ctx;
  res.setHeader('RateLimit-Limit', String(taken.limit));
  res.setHeader('RateLimit-Remaining', String(taken.remaining));
  res.setHeader('RateLimit-Reset', String(taken.resetSeconds));
  if (!taken.allowed) {
    throw new HttpError(429, `Too many requests from this user; try again in ${taken.resetSeconds} seconds`, { headers: { 'Retry-After': String(taken.resetSeconds) } });
  }
}

/**
 * The per-user budget as the token check applies it, right after it knows the caller (access.ts): every
 * authenticated request of a user not in USER_RATE_LIMIT_EXEMPT_ROLES takes one from their window, and is
 * answered with RateLimit-Limit / -Remaining / -Reset; past the budget, 429 with Retry-After. Public
 * routes (GET /, the health probes) never count.
 *
 * If the counter store (Redis) fails, the request goes through (fail open) and the outage is logged once
 * per interval: the budget shares the service fairly, it guards no secret (the auth limit, which guards
 * password guessing, fails closed).
 */
export function admission(budget: RequestBudget, logger: Logger): Admission {
  const exempt = new Set(budget.settings.exemptRoles);
  let lastOutageLog = 0;
  const outage = (ctx: ParameterizedContext<RequestState>, error: unknown) => {
    if (Date.now() - lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
    lastOutageLog = Date.now(); // one line per interval, not one per request
    logger.warn({ reqId: ctx.state.requestId, err: error }, 'user request budget unavailable: requests let through uncounted');
  };
  return (ctx, caller) => {
    if (exempt.has(caller.role)) return;
    const taken = budget.take(caller.id);
    if (!(taken instanceof Promise)) return answer(ctx, taken);
    return taken.then(
      (counted) => answer(ctx, counted),
      (error: unknown) => outage(ctx, error),
    );
  };
}
