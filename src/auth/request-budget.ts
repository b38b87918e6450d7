import type { Redis } from 'ioredis';
import type { Config } from '../config/config';
import type { RequestBudgetSettings } from '../config/request-budget-settings';
import type { Lifecycle } from '../lifecycle/lifecycle';
import type { Logger } from '../logger';
import { BoundedMap, createRateLimitStore, MEMORY_STORE_MAX_ENTRIES } from './rate-limit-store';

/** What one request took from its user's budget. */
export interface BudgetTaken {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the user's window starts again (at least 1). */
  resetSeconds: number;
}

/**
 * The per-user request budget (USER_RATE_LIMIT_MAX per USER_RATE_LIMIT_WINDOW): a fixed window per user, so
 * one signed-in user cannot take the whole service (docs/configuration.md). Counted in this process, or in
 * Redis with REDIS_URL (one budget across replicas). Memory answers synchronously: the check runs on every
 * authenticated request, and a promise per request is what it would cost.
 */
export interface RequestBudget {
  readonly settings: RequestBudgetSettings;
  take(userId: string): BudgetTaken | Promise<BudgetTaken>;
}

interface Window {
  count: number;
  /** When the window ends, epoch ms (BoundedMap orders by it: see rate-limit-store.ts). */
  reset: number;
}

function taken(settings: RequestBudgetSettings, count: number, resetMs: number): BudgetTaken {
  return {
    allowed: count <= settings.max,
    limit: settings.max,
    remaining: Math.max(0, settings.max - count),
    resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
  };
}

function memoryBudget(settings: RequestBudgetSettings): RequestBudget {
  const windows = new BoundedMap<string, Window>(MEMORY_STORE_MAX_ENTRIES);
  return {
    settings,
    take(userId) {
      const now = Date.now();
      let window = windows.get(userId);
      if (!window || window.reset <= now) {
        window = { count: 0, reset: now + settings.windowMs };
        windows.set(userId, window); // a new window goes last: the map stays ordered by reset
      }
      window.count += 1;
      return taken(settings, window.count, window.reset - now);
    },
  };
}

// One round trip: the count, and the window's expiry set by the request that opened it.
const TAKE_SCRIPT =
  "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return {n, redis.call('PTTL', KEYS[1])}";

function redisBudget(settings: RequestBudgetSettings, client: Redis): RequestBudget {
  return {
    settings,
    async take(userId) {
      const [count, ttl] = (await client.eval(TAKE_SCRIPT, 1, `user-rate-limit:${userId}`, settings.windowMs)) as [
        number,
        number,
      ];
      return taken(settings, count, ttl > 0 ? ttl : settings.windowMs);
    },
  };
}

/** The configured budget, or undefined when USER_RATE_LIMIT_MAX is 0. A Redis client is closed by the lifecycle. */
export function createRequestBudget(
  config: Pick<Config, 'redisUrl' | 'userRateLimit'>,
  logger: Logger,
  lifecycle: Lifecycle,
): RequestBudget | undefined {
  const settings = config.userRateLimit;
  if (settings.max === 0) return undefined;
  if (!config.redisUrl) return memoryBudget(settings);
  const store = createRateLimitStore(config, logger, lifecycle);
  return store.driver === 'redis' ? redisBudget(settings, store.db) : memoryBudget(settings);
}
