import { StoreUnavailableError } from './errors';

/**
 * Runs one store operation with a hard deadline and translates driver errors into the store's errors.
 * The drivers get their own connect/query timeouts too; this is the backstop that guarantees a caller
 * never waits longer than `timeoutMs` for any engine, whatever state its socket is in.
 */
export async function guarded<T>(
  operation: () => Promise<T>,
  timeoutMs: number,
  translate: (error: unknown) => unknown,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError(`The database did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  // Through a promise, so even an operation that throws synchronously settles here and clears the timer.
  const running = Promise.resolve().then(operation);
  // If the deadline wins, the operation may still fail later: that late rejection is expected, not unhandled.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, deadline]);
  } catch (error) {
    throw error instanceof StoreUnavailableError ? error : translate(error);
  } finally {
    clearTimeout(timer);
  }
}
