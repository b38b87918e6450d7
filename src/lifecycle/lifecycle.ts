import type { Logger } from '../logger';
import type { BurstActivity } from './burst-activity';

type Closer = () => Promise<void> | void;

/**
 * Process-wide run state. Readiness turns 503 once shutdown has begun; resources opened at start-up
 * (database, Redis, timers) register a closer here and are closed in reverse order of opening.
 */
export class Lifecycle {
  private stopping = false;
  private readonly closers: { name: string; close: Closer }[] = [];
  /** Who is told when memory-heavy work (a password hash) starts and ends, if anyone. */
  heavyWork?: BurstActivity;

  get shuttingDown(): boolean {
    return this.stopping;
  }

  beginShutdown(): void {
    this.stopping = true;
  }

  onClose(name: string, close: Closer): void {
    this.closers.push({ name, close });
  }

  /** Runs every closer, last opened first; one failing does not keep the others open. */
  async closeAll(logger: Logger): Promise<void> {
    for (const { name, close } of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        logger.warn({ err: error }, `closing ${name} failed`);
      }
    }
  }
}
