import type { Redis } from 'ioredis';
import { BoundedMap, MEMORY_STORE_MAX_ENTRIES, type RateLimitStore } from './rate-limit-store';

/** How many failures a key holds now, and how long until they are forgotten. */
export interface FailureCount {
  count: number;
  ttlMs: number;
}

/**
 * Counts failures per key, each key forgotten `windowMs` after its latest failure. Kept where the auth
 * rate-limit counters are (this process, or Redis with REDIS_URL), so every replica sees the same counts.
 */
export interface FailureCounter {
  peek(keys: readonly string[]): Promise<FailureCount[]>;
  add(keys: readonly string[], windowMs: number): Promise<void>;
  clear(key: string): Promise<void>;
}

/** In this process, bounded like the rate-limit store: past the cap the key closest to expiry goes first. */
class MemoryFailureCounter implements FailureCounter {
  private readonly entries = new BoundedMap<string, { count: number; reset: number }>(MEMORY_STORE_MAX_ENTRIES);

  async peek(keys: readonly string[]): Promise<FailureCount[]> {
    const now = Date.now();
    return keys.map((key) => {
      const entry = this.entries.get(key);
      return entry && entry.reset > now ? { count: entry.count, ttlMs: entry.reset - now } : { count: 0, ttlMs: 0 };
    });
  }

  async add(keys: readonly string[], windowMs: number): Promise<void> {
    const [now, counts] = [Date.now(), await this.peek(keys)];
    keys.forEach((key, index) => this.entries.set(key, { count: counts[index].count + 1, reset: now + windowMs }));
  }

  async clear(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

/** In Redis: INCR + PEXPIRE in one MULTI per failure; GET + PTTL to read. One round trip each. */
class RedisFailureCounter implements FailureCounter {
  constructor(private readonly redis: Redis) {}

  async peek(keys: readonly string[]): Promise<FailureCount[]> {
    const batch = this.redis.multi();
    for (const key of keys) batch.get(key).pttl(key);
    const replies = (await batch.exec()) ?? [];
    for (const [error] of replies) if (error) throw error;
    return keys.map((_key, index) => {
      const count = Number(replies[2 * index][1] ?? 0);
      const ttlMs = Number(replies[2 * index + 1][1]);
      return count > 0 && ttlMs > 0 ? { count, ttlMs } : { count: 0, ttlMs: 0 };
    });
  }

  async add(keys: readonly string[], windowMs: number): Promise<void> {
    const batch = this.redis.multi();
    for (const key of keys) batch.incr(key).pexpire(key, windowMs);
    for (const [error] of (await batch.exec()) ?? []) if (error) throw error;
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(key);
  }
}

/** A failure counter beside the rate-limit counters: memory, or the same Redis connection. */
export function createFailureCounter(store: RateLimitStore): FailureCounter {
  return store.driver === 'redis' ? new RedisFailureCounter(store.db) : new MemoryFailureCounter();
}
