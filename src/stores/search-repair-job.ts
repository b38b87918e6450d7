import type { Logger } from '../logger';

/** How often an instance passes over the tables whose search shadow is under repair. */
export const REPAIR_INTERVAL_MS = 30_000;

/** How long after its migration a shadow is repaired: the previous release of a rolling deploy is gone long before. */
export const REPAIR_WINDOW_MS = 60 * 60_000;

/** `updatedAt` is stamped by each instance's clock: a pass looks again at this much before the last one began. */
export const CLOCK_MARGIN_MS = 60_000;

/** One pass of every open repair of a store family (sql/migrations/search-repairs.ts, mongo/search-repairs.ts). */
export type SearchRepairPass = () => Promise<{ open: number; refolded: number }>;

/**
 * The passes of the open search-shadow repairs in this instance: the first soon after start, and again after
 * each migrate() (which may have opened one), then every REPAIR_INTERVAL_MS while a repair is open; none once
 * every one is closed. A failed pass is logged and tried again at the next. The timer never keeps the process
 * alive; stop() waits for a pass.
 */
export class SearchRepairJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly pass: SearchRepairPass,
    private readonly logger: Logger,
    private readonly intervalMs = REPAIR_INTERVAL_MS,
  ) {}

  /** Schedules a pass (unless one is scheduled or running already): at start, and after a migration. */
  start(firstDelayMs = Math.min(this.intervalMs, 5_000)): void {
    if (!this.timer && !this.running && !this.stopped) this.schedule(firstDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass now; resolves with whether a repair is still open. */
  async passOnce(): Promise<boolean> {
    try {
      const { open, refolded } = await this.pass();
      if (refolded > 0 || open > 0) this.logger.info({ open, refolded }, 'search shadows repaired');
      return open > 0;
    } catch (error) {
      this.logger.warn({ err: error }, 'search shadow repair failed; the next pass tries again');
      return true;
    }
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.passOnce().then((again) => {
        this.running = undefined;
        if (again && !this.stopped) this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }
}
