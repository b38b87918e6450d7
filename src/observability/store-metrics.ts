import { DuplicateKeyError, StoreUnavailableError } from '../stores/errors';
import type { StoreCallObserver } from '../stores/observed-database';
import type { StoreErrorKind, StoreMetrics } from './metrics';

function kindOf(error: unknown): StoreErrorKind {
  if (error instanceof StoreUnavailableError) return 'unavailable';
  if (error instanceof DuplicateKeyError) return 'duplicate_key';
  return 'other';
}

/** Times every store call and counts its failures by kind (an outage is `unavailable`). */
export function storeMetricsObserver(metrics: StoreMetrics): StoreCallObserver {
  return async (operation, call) => {
    const started = performance.now();
    try {
      const result = await call();
      metrics.call(operation, (performance.now() - started) / 1000, undefined);
      return result;
    } catch (error) {
      metrics.call(operation, (performance.now() - started) / 1000, kindOf(error));
      throw error;
    }
  };
}
