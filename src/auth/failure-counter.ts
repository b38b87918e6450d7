import type { Redis } from 'ioredis';
import { BoundedMap, MEMORY_STORE_MAX_ENTRIES, type RateLimitStore } from './rate-limit-store';

/** A counter and how many it may hold before the next attempt is refused. */
export interface Limit {
  key: string;
  limit: number;
}

/**
 * Counts failed attempts per key, each key forgotten `windowMs` after its latest attempt. Kept where the
 * auth rate-limit counters are (this process, or Redis with REDIS_URL), so every replica sees the same
 * counts.
 *
 * An attempt is counted BEFORE it is checked (`reserve`) and given back when it succeeds (`release`):
 * checking first and counting after the slow password verify let N parallel guesses all pass a limit
 * of five. Each call is atomic (one synchronous step in memory, one Lua script in Redis).
 */
export interface FailureCounter {
  /**
   * Counts one attempt against every limit, or none when any is reached: then the milliseconds until
   * the blocking key is forgotten (0 when the attempt was counted).
   */
  reserve(limits: readonly Limit[], windowMs: number): Promise<number>;
  /** A counted attempt succeeded: `clear` keys are forgotten, `giveBack` keys lose the attempt. */
  release(clear: readonly string[], giveBack: readonly string[]): Promise<void>;
}

/** In this process, bounded like the rate-limit store: past the cap the key closest to expiry goes first. */
class MemoryFailureCounter implements FailureCounter {
  private readonly entries = new BoundedMap<string, { count: number; reset: number }>(MEMORY_STORE_MAX_ENTRIES);

  private live(key: string, now: number): { count: number; reset: number } | undefined {
    const entry = this.entries.get(key);
    return entry && entry.reset > now ? entry : undefined;
  }

  async reserve(limits: readonly Limit[], windowMs: number): Promise<number> {
    const now = Date.now();
    let blockedMs = 0;
    for (const { key, limit } of limits) {
      const entry = this.live(key, now);
      if (entry && entry.count >= limit) blockedMs = Math.max(blockedMs, entry.reset - now);
    }
    if (blockedMs > 0) return blockedMs;
    for (const { key } of limits)
      this.entries.set(key, { count: (this.live(key, now)?.count ?? 0) + 1, reset: now + windowMs });
    return 0;
  }

  async release(clear: readonly string[], giveBack: readonly string[]): Promise<void> {
    const now = Date.now();
    for (const key of clear) this.entries.delete(key);
    for (const key of giveBack) {
      const entry = this.live(key, now);
      if (entry && entry.count > 1) entry.count -= 1;
      else this.entries.delete(key);
    }
  }
}

// KEYS: the counters; ARGV[1]: the window (ms); ARGV[2..]: each key's limit. All checked, then all counted.
const RESERVE = `
local blocked = 0
for i, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[i + 1]) then
    local ttl = redis.call('PTTL', key)
    if ttl < 0 then ttl = tonumber(ARGV[1]) end
    if ttl > blocked then blocked = ttl end
  end
end
if blocked > 0 then return blocked end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('PEXPIRE', key, ARGV[1])
end
return 0`;

// KEYS[1..ARGV[1]]: forgotten; the rest lose one attempt (and go at zero).
const RELEASE = `
local clear = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  if i <= clear then redis.call('DEL', key)
  elseif redis.call('DECR', key) <= 0 then redis.call('DEL', key) end
end
return 0`;

/** In Redis: one Lua script per reservation or release, so replicas racing on one account cannot both pass. */
class RedisFailureCounter implements FailureCounter {
  constructor(private readonly redis: Redis) {}

  async reserve(limits: readonly Limit[], windowMs: number): Promise<number> {
    const keys = limits.map((entry) => entry.key);
    return Number(
      await this.redis.eval(RESERVE, keys.length, ...keys, windowMs, ...limits.map((entry) => entry.limit)),
    );
  }

  async release(clear: readonly string[], giveBack: readonly string[]): Promise<void> {
    const keys = [...clear, ...giveBack];
    if (keys.length > 0) await this.redis.eval(RELEASE, keys.length, ...keys, clear.length);
  }
}

/** A failure counter beside the rate-limit counters: memory, or the same Redis connection. */
export function createFailureCounter(store: RateLimitStore): FailureCounter {
  return store.driver === 'redis' ? new RedisFailureCounter(store.db) : new MemoryFailureCounter();
}
