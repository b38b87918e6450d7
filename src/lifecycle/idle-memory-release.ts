import type { BurstActivity } from './burst-activity';

// What a burst of sign-ins leaves committed, given back once it is over. Each argon2 hash holds 19 MiB of
// malloc'd memory while it runs, and the load around a burst grows V8's young generation to its maximum; when
// the burst stops, nothing allocates, so V8's memory reducer, which measures the allocation rate only at
// collections, never runs, and the process keeps its peak for as long as it idles (docs/performance.md,
// "Memory"). Once no hash has run for `idleMs` after some did, one memory-reducing collection (the one start-up
// runs) gives it back; then nothing more until hashing starts again. Tied to the hashes, not to every request:
// a collection after each pause of ordinary traffic would make the young generation grow back each time
// (+25 % CPU a request in `make bench`, whose rounds pause between the stacks), where a sign-in burst is rare.
// Its cost: it drops the optimised code of the request path with the hidden classes no live object has, so the
// next second or so of traffic runs slower; an ordinary collection instead gave back too little (performance.md).

/** How long without a hash before the collection: long enough that a burst's gaps do not trigger it. */
export const IDLE_RELEASE_MS = 1_000;
/** The least time between two collections: sign-ins a second and a half apart (or failed ones sent on purpose) collect twice a minute at most. */
export const MIN_RELEASE_INTERVAL_MS = 30_000;

export class IdleMemoryRelease implements BurstActivity {
  private inFlight = 0;
  private lastEnded = 0;
  private lastRelease = -Infinity;
  /** Work came since the last collection. */
  private busy = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly release: () => number,
    private readonly idleMs = IDLE_RELEASE_MS,
    private readonly released: (ms: number) => void = () => undefined,
    private readonly minIntervalMs = MIN_RELEASE_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => this.check(), idleMs);
    this.timer.unref();
  }

  /** A unit of the work began. */
  started(): void {
    this.inFlight += 1;
    this.busy = true;
  }

  /** It ended. */
  ended(): void {
    this.inFlight -= 1;
    this.lastEnded = performance.now();
  }

  close(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const now = performance.now();
    if (
      !this.busy ||
      this.inFlight > 0 ||
      now - this.lastEnded < this.idleMs ||
      now - this.lastRelease < this.minIntervalMs
    )
      return;
    this.busy = false;
    this.lastRelease = now;
    this.released(this.release());
  }
}
