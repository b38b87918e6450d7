/** How one batch of keys is read: one key alone, several in one statement, and where a row carries its key. */
export interface BatchReader<Row> {
  one(key: string): Promise<Row | null>;
  many(keys: readonly string[]): Promise<Row[]>;
  keyOf(row: Row): unknown;
}

/** The most keys one statement looks up; more wait for the next. */
export const MAX_KEYS_PER_BATCH = 100;

interface Waiter<Row> {
  resolve(row: Row | null): void;
  reject(error: unknown): void;
}

/**
 * Lookups by key on SQLite's one connection, taken together. SQLite runs one statement at a time per connection,
 * so lookups that arrive while one runs wait anyway; here they wait as a batch, and the next statement reads all of
 * their keys at once. Each statement costs a hand-off to libuv's thread pool and back, and the requests it
 * answers then finish in one event-loop turn (their log lines in one write) instead of one turn each.
 *
 * A lookup never waits longer than it would have, and never gets an older answer: when nothing is running it
 * starts at once, alone, and a waiting lookup joins only a statement that has not started. Lookups of the same
 * key in one batch share its row. A failed statement fails every lookup of its batch, as it would have failed
 * each of them; the next batch starts afresh.
 */
export class ReadBatches<Row> {
  private waiting = new Map<string, Waiter<Row>[]>();
  private running = false;

  constructor(private readonly reader: BatchReader<Row>) {}

  read(key: string): Promise<Row | null> {
    return new Promise<Row | null>((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.size > 0) await this.readBatch(this.nextBatch());
    } finally {
      this.running = false;
    }
  }

  private async readBatch(batch: Map<string, Waiter<Row>[]>): Promise<void> {
    try {
      const keys = [...batch.keys()];
      if (keys.length === 1) {
        const row = await this.reader.one(keys[0]);
        for (const waiter of batch.get(keys[0]) ?? []) waiter.resolve(row);
        return;
      }
      const rows = new Map<string, Row>();
      for (const row of await this.reader.many(keys)) rows.set(String(this.reader.keyOf(row)), row);
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(rows.get(key) ?? null);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }

  /** The waiting lookups up to MAX_KEYS_PER_BATCH keys, oldest first; the rest stay waiting. */
  private nextBatch(): Map<string, Waiter<Row>[]> {
    if (this.waiting.size <= MAX_KEYS_PER_BATCH) {
      const batch = this.waiting;
      this.waiting = new Map();
      return batch;
    }
    const batch = new Map<string, Waiter<Row>[]>();
    for (const [key, waiters] of this.waiting) {
      if (batch.size === MAX_KEYS_PER_BATCH) break;
      batch.set(key, waiters);
      this.waiting.delete(key);
    }
    return batch;
  }
}
