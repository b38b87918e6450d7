import type { Logger } from '../logger';

/**
 * Periodically removes expired records on the relational engines (the stores' expiry tasks, e.g. refresh
 * tokens; MongoDB has TTL indexes instead). Runs in-process: the first run soon after start, then every `intervalMs`; runs never overlap
 * (the next one is scheduled when the previous finishes); the timer is unref'd so it never keeps the
 * process alive; stop() cancels it and waits for a run in progress. Each task is a single
 * `DELETE ... WHERE expires_at <= now`, so several instances running it is harmless.
 */
export class ExpiredRecordCleanup {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly deleteExpired: () => Promise<number>,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    /** Delay before the first run: soon, but not in the middle of start-up. */
    private readonly firstRunDelayMs: number = Math.min(intervalMs, 10_000),
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.schedule(this.firstRunDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run now; resolves with the number of rows removed (errors are logged, never thrown). */
  async runOnce(): Promise<number> {
    try {
      const removed = await this.deleteExpired();
      this.logger.info({ removed }, 'expired records removed');
      return removed;
    } catch (error) {
      // A database outage must not kill the process; the next run tries again.
      this.logger.warn({ err: error }, 'expired-record cleanup failed');
      return 0;
    }
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.runOnce().then(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }
}
