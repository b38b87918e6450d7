import { availableParallelism } from 'node:os';
import type { BurstActivity } from '../lifecycle/burst-activity';

// At most `concurrency` argon2 computations at once, the rest waiting in a bounded queue.
//
// Each argon2id computation holds its memory cost (19 MiB with the OWASP parameters) for its whole run, in
// a libuv pool thread. Unbounded, a login burst runs as many as the pool has threads (4 by default, more
// if UV_THREADPOOL_SIZE says so) and takes those threads from file system and DNS work too; waiting for a
// thread, every queued request holds its socket and body. With a bound near the core count, hashing memory
// is at most `concurrency` × the memory cost, and when the queue is full the request is refused at once
// with a 503 and Retry-After, instead of waiting ever longer (docs/performance.md, "Memory").

/** Concurrent hashes by default (PASSWORD_HASH_CONCURRENCY): one per core; more only wait for the same cores while holding memory. */
export const DEFAULT_HASH_CONCURRENCY = availableParallelism();
/** Hashes waiting by default (PASSWORD_HASH_QUEUE) before a 503: at ~30 ms each, under a second's work on 2 cores. */
export const DEFAULT_HASH_QUEUE = 32;

/** The queue of waiting hash computations is full: the caller should retry shortly. */
export class HashQueueFullError extends Error {
  constructor() {
    super('Too many password checks in progress');
    this.name = 'HashQueueFullError';
  }
}

export class HashQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxQueued: number,
    /** Told as each computation starts and ends (the memory release after a burst: idle-memory-release.ts). */
    private readonly activity?: BurstActivity,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError('concurrency must be a whole number ≥ 1');
    if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be a whole number ≥ 0');
  }

  /** Computations running and waiting now (for tests and figures). */
  get load(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  /** Runs `task` when a slot is free; throws HashQueueFullError at once when `maxQueued` already wait. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxQueued) throw new HashQueueFullError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      // The slot was handed over by the task that finished: `running` already counts this one.
    } else {
      this.running++;
    }
    this.activity?.started();
    try {
      return await task();
    } finally {
      this.activity?.ended();
      const next = this.waiting.shift();
      if (next)
        next(); // hand the slot over directly, so a new arrival cannot overtake the queue
      else this.running--;
    }
  }
}
