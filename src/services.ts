import type { TokenService } from './auth/tokens';
import type { Config } from './config/config';
import type { ModuleDefinition } from './http/routing/route';
import type { Lifecycle } from './lifecycle/lifecycle';
import type { Logger } from './logger';
import type { Metrics } from './observability/metrics';
import type { Database } from './stores/types';

/** Everything the entry point wires once and hands to the app and to each module. */
export interface Services {
  config: Config;
  logger: Logger;
  database: Database;
  tokens: TokenService;
  lifecycle: Lifecycle;
  /** Prometheus metrics when METRICS_PORT is set; otherwise `metricsOff`, whose calls do nothing. */
  metrics: Metrics;
}

/** A module is built from the services, so it can reach stores and settings without globals. */
export type ModuleFactory = (services: Services) => ModuleDefinition;
