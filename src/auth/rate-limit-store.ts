import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config';
import type { Lifecycle } from '../lifecycle/lifecycle';
import type { Logger } from '../logger';

// Where the auth rate-limit counters live: in this process (memory, the default) or in Redis (REDIS_URL),
// where every instance of the service counts against one shared limit.

/** Most client IPs the memory store remembers at once (about 150 bytes each: ~15 MB at the cap). */
export const MEMORY_STORE_MAX_ENTRIES = 100_000;

/** Redis must answer within this; a slower answer counts as "Redis is down" (see the rate-limit middleware). */
const REDIS_COMMAND_TIMEOUT_MS = 1_000;

interface CounterEntry {
  /** When the window ends, in epoch seconds (koa-ratelimit's memory driver). */
  reset: number;
}

/**
 * A Map with a ceiling, for koa-ratelimit's memory driver. That driver never deletes a key (it only
 * re-initialises a key whose window has passed), so a plain Map grows by one entry per client IP for
 * ever, and an attacker rotating source addresses could grow it without limit.
 *
 * Every (re)initialised window moves its key to the end, so the Map stays ordered by window end. Past the
 * ceiling the oldest entry goes: first any whose window has ended (nothing lost), else the one closest to
 * its reset. Evicting a live counter forgives that IP's earlier requests; it needs MEMORY_STORE_MAX_ENTRIES
 * other addresses within one window, and the limit is per IP anyway.
 */
export class BoundedMap<K, V extends CounterEntry> extends Map<K, V> {
  constructor(readonly maxEntries: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.has(key)) super.delete(key); // a new window: move to the end, keeping the order by reset time
    while (this.size >= this.maxEntries) {
      const oldest = this.keys().next();
      if (oldest.done) break;
      super.delete(oldest.value);
    }
    return super.set(key, value);
  }
}

export type RateLimitStore =
  { driver: 'memory'; db: BoundedMap<string, CounterEntry> } | { driver: 'redis'; db: Redis };

/**
 * The Redis client is tuned so that a Redis outage never hangs a request: each command (including one
 * queued while reconnecting, e.g. right after start-up) fails after REDIS_COMMAND_TIMEOUT_MS, queued
 * commands are flushed after one failed reconnect, and the socket connect gives up after 2 s.
 */
function redisClient(url: string, logger: Logger): Redis {
  // Required here, not at the top: without REDIS_URL the process never loads ioredis (about 20 MiB).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis: RedisClient } = require('ioredis') as typeof IORedis;
  const client = new RedisClient(url, {
    connectTimeout: 2_000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000), // keep reconnecting, at most every 2 s
  });
  let healthy = true;
  // ioredis emits 'error' on every failed reconnect; log the first of each outage only.
  client.on('error', (error: Error) => {
    if (healthy) logger.warn({ err: { message: error.message } }, 'rate-limit Redis connection failed');
    healthy = false;
  });
  client.on('ready', () => {
    if (!healthy) logger.info('rate-limit Redis connection restored');
    healthy = true;
  });
  return client;
}

/** Opens the configured store; a Redis client is closed by the lifecycle at shutdown. */
export function createRateLimitStore(
  config: Pick<Config, 'redisUrl'>,
  logger: Logger,
  lifecycle: Lifecycle,
): RateLimitStore {
  if (!config.redisUrl) return { driver: 'memory', db: new BoundedMap(MEMORY_STORE_MAX_ENTRIES) };
  const client = redisClient(config.redisUrl, logger);
  lifecycle.onClose('rate-limit redis', async () => {
    try {
      await client.quit(); // bounded by the command timeout when Redis is gone
    } catch {
      // already unreachable: the disconnect below is all that is left to do
    } finally {
      client.disconnect();
    }
  });
  return { driver: 'redis', db: client };
}
