import type { Release } from '../../auth/user-concurrency';
import { HttpError } from '../errors';

// Searches take turns across the whole process (SEARCH_CONCURRENCY_MAX), fairly between callers. A search
// page is bounded (an index, or a walk within the scan limit), but it costs more than a page of a list, and
// turns per user (user-concurrency.ts) bound each account, not how many accounts flood: three accounts with
// four turns each held twelve of a pool's ten connections, and every other user's read waited behind them
// (decision 032). With search turns, searches hold at most this many connections, the rest of the pool stays
// for everything else, and a search waiting for a turn waits in a round: each waiting caller's oldest search
// goes before any caller's second. A caller may have 8 searches waiting, and the process 256; past either, 429.

/** How many searches may wait for a turn in a process before more are refused (429). */
const MAX_WAITING = 256;
/** How many of one caller's searches may wait: a caller without turns of their own (a public read's address) cannot fill the queue. */
const MAX_WAITING_PER_CALLER = 8;

export class SearchTurns {
  private running = 0;
  /** The waiting searches by caller, callers in the order they are served next (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Array<(release: Release) => void>>();
  private waitingCount = 0;

  constructor(
    readonly slots: number,
    private readonly maxWaiting = MAX_WAITING,
    private readonly maxWaitingPerCaller = MAX_WAITING_PER_CALLER,
  ) {}

  /** A release right away, a promise of one once a turn frees for this caller, or undefined when too many wait. */
  enter(caller: string): Release | Promise<Release> | undefined {
    if (this.running < this.slots && this.waitingCount === 0) {
      this.running += 1;
      return this.releaser();
    }
    const queue = this.waiting.get(caller);
    if (this.waitingCount >= this.maxWaiting || (queue?.length ?? 0) >= this.maxWaitingPerCaller) return undefined;
    this.waitingCount += 1;
    return new Promise<Release>((resolve) => {
      if (queue) queue.push(resolve);
      else this.waiting.set(caller, [resolve]);
    });
  }

  /** Searches running now, and waiting: for tests and metrics. */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingCount };
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.next();
      // The turn passes straight to the next waiting search: `running` stays as it is.
      if (next) next(this.releaser());
      else this.running -= 1;
    };
  }

  /** The oldest search of the caller first in the round, who then goes to the back of it if more of theirs wait. */
  private next(): ((release: Release) => void) | undefined {
    const first = this.waiting.entries().next();
    if (first.done) return undefined;
    const [caller, queue] = first.value;
    const resolve = queue.shift()!;
    this.waiting.delete(caller);
    if (queue.length > 0) this.waiting.set(caller, queue);
    this.waitingCount -= 1;
    return resolve;
  }
}

/** Runs a search in a turn of `turns` (none: at once); a full queue is a 429 the caller may retry. */
export async function inSearchTurn<T>(
  turns: SearchTurns | undefined,
  caller: string,
  search: () => Promise<T>,
): Promise<T> {
  if (!turns) return search();
  const turn = turns.enter(caller);
  if (turn === undefined)
    throw new HttpError(429, 'Too many searches at once; try again shortly', { headers: { 'Retry-After': '1' } });
  const release = await turn;
  try {
    return await search();
  } finally {
    release();
  }
}
