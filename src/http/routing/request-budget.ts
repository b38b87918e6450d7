import type { ParameterizedContext } from 'koa';
import type { RequestBudget, BudgetTaken } from '../../auth/request-budget';
import type { AuthUser } from '../../auth/tokens';
import { UserConcurrency, type Release } from '../../auth/user-concurrency';
import type { RequestBudgetSettings } from '../../config/request-budget-settings';
import type { Logger } from '../../logger';
import { HttpError } from '../errors';
import { answerHeader } from '../json-answer';
import type { RequestState } from './route';

const OUTAGE_LOG_INTERVAL_MS = 10_000;

/** Checks the caller's budget; throws the 429, or sets the counters on the answer. */
export type Admission = (ctx: ParameterizedContext<RequestState>, caller: AuthUser) => void | Promise<void>;

function answer(ctx: ParameterizedContext<RequestState>, taken: BudgetTaken): void {
  // Written with the answer's other headers (json-answer.ts): an answer with no header set through Node's
  // table is written in one go.
  answerHeader(ctx, 'ratelimit-limit', String(taken.limit));
  answerHeader(ctx, 'ratelimit-remaining', String(taken.remaining));
  answerHeader(ctx, 'ratelimit-reset', String(taken.resetSeconds));
  if (!taken.allowed) {
    throw new HttpError(429, `Too many requests from this user; try again in ${taken.resetSeconds} seconds`, {
      headers: { 'Retry-After': String(taken.resetSeconds) },
    });
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
    logger.warn(
      { reqId: ctx.state.requestId, err: error },
      'user request budget unavailable: requests let through uncounted',
    );
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

/** How many of a user's requests may wait for a turn before more are refused (429). */
const MAX_WAITING_PER_USER = 64;

/** A turn for the caller's request: at once, once one of theirs ends, or undefined (exempt); throws the 429. */
export type TurnTaker = (caller: AuthUser) => Release | Promise<Release> | undefined;

/**
 * Turns per user (user-concurrency.ts) as the token check applies them, after the budget and the role check:
 * USER_CONCURRENCY_MAX requests of a user run at once, the rest wait. Users of an exempt role (the budget's)
 * are not held. Undefined when the setting is 0.
 */
export function turnTaker(settings: RequestBudgetSettings): TurnTaker | undefined {
  if (settings.concurrency === 0) return undefined;
  const turns = new UserConcurrency(settings.concurrency, MAX_WAITING_PER_USER);
  const exempt = new Set(settings.exemptRoles);
  return (caller) => {
    if (exempt.has(caller.role)) return undefined;
    const turn = turns.enter(caller.id);
    if (turn === undefined) {
      throw new HttpError(429, `Too many requests from this user at once; try again when some have been answered`, {
        headers: { 'Retry-After': '1' },
      });
    }
    return turn;
  };
}
