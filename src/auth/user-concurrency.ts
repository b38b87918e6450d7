/** Ends a request's turn: the next waiting request of the same user starts. Call once. */
export type Release = () => void;

interface Turns {
  running: number;
  waiting: Array<(release: Release) => void>;
}

/**
 * How many requests of one signed-in user run at once in this process (USER_CONCURRENCY_MAX); the rest wait
 * their turn, first come first served, before they touch a store. A request budget counts requests, not what
 * they hold: twenty loops of one user's searches would otherwise keep twenty statements queued on the pool
 * (SQLite's one connection) ahead of every other user's read. With turns, another user's statement waits
 * behind at most this many of theirs (docs/decisions/024).
 *
 * Per process, like the pool it protects. A user with `maxWaiting` requests already waiting gets undefined
 * (the caller answers 429): waiting requests hold a socket and memory, and an endless queue is a flood too.
 */
export class UserConcurrency {
  private readonly turns = new Map<string, Turns>();

  constructor(
    readonly max: number,
    private readonly maxWaiting: number,
  ) {}

  /** A release right away, a promise of one when the user's turns are taken, or undefined when their queue is full. */
  enter(userId: string): Release | Promise<Release> | undefined {
    let turns = this.turns.get(userId);
    if (!turns) {
      turns = { running: 0, waiting: [] };
      this.turns.set(userId, turns);
    }
    if (turns.running < this.max) {
      turns.running += 1;
      return this.releaser(userId, turns);
    }
    if (turns.waiting.length >= this.maxWaiting) return undefined;
    const queue = turns.waiting;
    return new Promise<Release>((resolve) => queue.push(resolve));
  }

  /** Requests of the user running now (0 for a user with none): for tests and metrics. */
  running(userId: string): number {
    return this.turns.get(userId)?.running ?? 0;
  }

  private releaser(userId: string, turns: Turns): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = turns.waiting.shift();
      // The turn passes straight to the next waiting request: `running` stays as it is.
      if (next) return next(this.releaser(userId, turns));
      turns.running -= 1;
      if (turns.running === 0) this.turns.delete(userId);
    };
  }
}
