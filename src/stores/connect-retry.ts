import type { Logger } from '../logger';
import { StoreUnavailableError } from './errors';

export interface ConnectRetryOptions {
  /** Attempts before giving up (at least 1). */
  attempts: number;
  /** Wait before the second attempt; doubled each time, at most 8 s. */
  firstDelayMs?: number;
}

/** The driver's own words (e.g. "connect ECONNREFUSED 10.0.0.5:5432"), which never include a password. */
function describeFailure(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const message = cause instanceof Error ? cause.message : String(cause);
  return message || (error instanceof Error ? error.message : 'unknown error');
}

/**
 * Start-up against a database that may still be starting (containers, a failover): try to connect a
 * bounded number of times with back-off, then fail with a message naming the engine and host (never the
 * password). With the defaults (5 attempts, 1 s doubling) start-up gives up after about 15 s plus the
 * attempts' own connect timeouts.
 */
export async function connectWithRetry(
  connectOnce: () => Promise<void>,
  description: string,
  logger: Logger,
  { attempts, firstDelayMs = 1_000 }: ConnectRetryOptions,
): Promise<void> {
  let delayMs = firstDelayMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await connectOnce();
      return;
    } catch (error) {
      const reason = describeFailure(error);
      if (attempt >= attempts) {
        throw new StoreUnavailableError(`Could not connect to ${description} after ${attempts} attempt(s): ${reason}`, {
          cause: error,
        });
      }
      logger.warn({ attempt, attempts, retryInMs: delayMs, reason }, `database not reachable yet (${description})`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 8_000);
    }
  }
}
