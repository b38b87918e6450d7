import type { Config } from '../config/config';
import type { AnyStoreDefinition } from '../stores/kit/registry';
import {
  nameFailedOperations,
  observeDatabase,
  storeOperations,
  type StoreCallObserver,
} from '../stores/observed-database';
import type { Database } from '../stores/types';
import { metricsOff, type Metrics } from './metrics';
import type * as PrometheusMetrics from './prometheus-metrics';
import type * as StoreSpans from './store-spans';
import { storeMetricsObserver } from './store-metrics';

/**
 * Metrics and tracing as configured: prom-client is loaded only with METRICS_PORT, the OpenTelemetry API
 * only with tracing on. The app gets the database with its store calls observed: named on their errors
 * always, timed and counted with metrics, wrapped in a span with tracing.
 */
export function observability(
  config: Pick<Config, 'metricsPort' | 'tracing'>,
  database: Database,
  stores: readonly AnyStoreDefinition[],
): { metrics: Metrics; database: Database } {
  const observers: StoreCallObserver[] = [];
  let metrics = metricsOff;
  if (config.metricsPort !== undefined) {
    // Required here, not imported at the top: prom-client is loaded only when metrics are on.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createPrometheusMetrics } = require('./prometheus-metrics') as typeof PrometheusMetrics;
    metrics = createPrometheusMetrics({
      storeOperations: storeOperations(database, stores),
      poolStats: () => database.poolStats?.(),
    });
    observers.push(storeMetricsObserver(metrics.store));
  }
  if (config.tracing) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the OpenTelemetry API only with tracing on
    const { storeSpans } = require('./store-spans') as typeof StoreSpans;
    observers.push(storeSpans(database.engine));
  }
  // Innermost, always: a failed store call is named on its error for the log line.
  observers.push(nameFailedOperations);
  // The first observer is the outermost: metrics time the call including its span.
  const observe = observers.reduce(
    (outer, inner): StoreCallObserver =>
      (operation, call) =>
        outer(operation, () => inner(operation, call)),
  );
  return { metrics, database: observeDatabase(database, observe) };
}
