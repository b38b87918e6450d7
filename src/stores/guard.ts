import { StoreUnavailableError } from './errors';

/**
 * Runs one store operation with a hard deadline and translates driver errors into the store's errors.
 * The drivers get their own connect/query timeouts too; this is the backstop that guarantees a caller
 * never waits longer than `timeoutMs` for any engine, whatever state its socket is in.
 */
export function guarded<T>(
  operation: () => Promise<T>,
  timeoutMs: number,
  translate: (error: unknown) => unknown,
): Promise<T> {
  // One promise and one timer per call (this wraps every store call): no Promise.race, no async frame.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new StoreUnavailableError(`The database did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    // Through a promise, so even an operation that throws synchronously settles here and clears the timer.
    // If the deadline won, the operation's late outcome is ignored (a settled promise stays as it is).
    Promise.resolve()
      .then(operation)
      .then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof StoreUnavailableError ? error : translate(error));
        },
      );
  });
}
