import type { Context, Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';
import type { RateLimitStore } from '../../auth/rate-limit-store';
import type { Config } from '../../config/config';
import { clientBucket } from '../../http/client-ip';
import { HttpError, unavailable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import type { ErrorResponses, HeaderDoc } from '../../http/routing/route';
import type { Logger } from '../../logger';

const HEADERS = { total: 'RateLimit-Limit', remaining: 'RateLimit-Remaining', reset: 'RateLimit-Reset' };
/** Retry-After when the counter store (Redis) cannot be reached; the login throttle uses it too. */
export const RETRY_WHEN_UNAVAILABLE_SECONDS = 5;
const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * For the other counters kept beside the rate limit's (the login throttle): if they cannot be reached, fail
 * closed (503) like the rate limiter, which has already logged the outage: it ran first on the same store.
 */
export async function counted<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch {
    throw unavailable(RETRY_WHEN_UNAVAILABLE_SECONDS);
  }
}

/**
 * koa-ratelimit sends the reset as an epoch timestamp; the RateLimit header draft and Retry-After want
 * seconds from now. Clamped to the window: the memory driver's clock runs a hair ahead of Date.now().
 */
function rewriteReset(ctx: Context, windowSeconds: number): number {
  const reset = Math.min(
    windowSeconds,
    Math.max(1, Math.ceil(Number(ctx.response.get(HEADERS.reset)) - Date.now() / 1000)),
  );
  ctx.set(HEADERS.reset, String(reset));
  return reset;
}

/** The counters the limiter sends on the answers it lets through, for the API document. */
export const authRateLimitHeaders: Record<string, HeaderDoc> = {
  [HEADERS.total]: FRAMEWORK_HEADERS[HEADERS.total],
  [HEADERS.remaining]: FRAMEWORK_HEADERS[HEADERS.remaining],
  [HEADERS.reset]: FRAMEWORK_HEADERS[HEADERS.reset],
};

/** What the limiter can answer instead of the route, for the API document (the module declares it with the middleware). */
export const authRateLimitErrors: ErrorResponses = {
  429: {
    description:
      'Too many requests from this client IP to /api/auth/* in the window (AUTH_RATE_LIMIT_MAX per AUTH_RATE_LIMIT_WINDOW)',
    headers: {
      'Retry-After': FRAMEWORK_HEADERS['Retry-After'],
      [HEADERS.total]: FRAMEWORK_HEADERS[HEADERS.total],
      [HEADERS.remaining]: FRAMEWORK_HEADERS[HEADERS.remaining],
      [HEADERS.reset]: FRAMEWORK_HEADERS[HEADERS.reset],
    },
  },
  503: {
    description: 'The rate-limit store (Redis) is unavailable: refused rather than unlimited',
    headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] },
  },
};

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
        logger.warn(
          { reqId: ctx.state.requestId, err: error },
          'auth rate limiter unavailable: requests refused with 503',
        );
      }
      throw unavailable(RETRY_WHEN_UNAVAILABLE_SECONDS);
    }
  };
}
