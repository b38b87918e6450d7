import type { Context, Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';
import type { RateLimitStore } from '../../auth/rate-limit-store';
import type { Config } from '../../config/config';
import { clientBucket } from '../../http/client-ip';
import { HttpError, unavailable } from '../../http/errors';
import type { Logger } from '../../logger';

const HEADERS = { total: 'RateLimit-Limit', remaining: 'RateLimit-Remaining', reset: 'RateLimit-Reset' };
/** Retry-After when the counter store (Redis) cannot be reached; the login throttle uses it too. */
export const RETRY_WHEN_UNAVAILABLE_SECONDS = 5;
const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * koa-ratelimit sends the reset as an epoch timestamp; the RateLimit header draft and Retry-After want
 * seconds from now. Clamped to the window: the memory driver's clock runs a hair ahead of Date.now().
 */
function rewriteReset(ctx: Context, windowSeconds: number): number {
  const reset = Math.min(windowSeconds, Math.max(1, Math.ceil(Number(ctx.response.get(HEADERS.reset)) - Date.now() / 1000)));
  ctx.set(HEADERS.reset, String(reset));
  return reset;
}

/**
 * One limit shared by every request under /api/auth (matched route or not): AUTH_RATE_LIMIT_MAX requests
 * per AUTH_RATE_LIMIT_WINDOW per client: an IPv4 address, or an IPv6 /64. The client IP is ctx.ip, which
 * follows TRUST_PROXY: with 0 X-Forwarded-For is ignored, so a forged header cannot buy a fresh counter.
 *
 * Over the limit: 429 fail envelope with Retry-After and RateLimit-Limit / -Remaining / -Reset.
 * If the counter store (Redis) fails, the request is refused with 503 (fail closed): the limit guards
 * password guessing, and an attacker who can upset Redis must not get unlimited attempts. The Redis client's
 * timeouts make that refusal quick (rate-limit-store.ts).
 */
export function authRateLimit(
  settings: Config['authRateLimit'],
  store: RateLimitStore,
  logger: Logger,
  onLimited: (ctx: Context) => void,
): Middleware {
  const limiter = ratelimit({
    driver: store.driver,
    db: store.db,
    duration: settings.windowMs,
    max: settings.max,
    id: clientBucket, // IPv6 clients by /64: see client-ip.ts
    namespace: 'auth-rate-limit',
    headers: HEADERS,
    throw: true,
  });

  const windowSeconds = Math.ceil(settings.windowMs / 1000);
  let lastOutageLog = 0;
  return async (ctx, next) => {
    let admitted = false;
    try {
      await limiter(ctx, async () => {
        admitted = true;
        rewriteReset(ctx, windowSeconds);
        await next();
      });
    } catch (error) {
      if (admitted) throw error; // from the route downstream: not ours to translate
      if ((error as { status?: unknown }).status === 429) {
        onLimited(ctx);
        const reset = rewriteReset(ctx, windowSeconds);
        throw new HttpError(429, `Too many authentication requests; try again in ${reset} seconds`, {
          headers: {
            'Retry-After': String(reset),
            [HEADERS.total]: String(settings.max),
            [HEADERS.remaining]: '0',
            [HEADERS.reset]: String(reset),
          },
        });
      }
      if (Date.now() - lastOutageLog >= OUTAGE_LOG_INTERVAL_MS) {
        lastOutageLog = Date.now(); // one line per interval, not one per refused request
        logger.warn({ reqId: ctx.state.requestId, err: error }, 'auth rate limiter unavailable: requests refused with 503');
      }
      throw unavailable(RETRY_WHEN_UNAVAILABLE_SECONDS);
    }
  };
}
