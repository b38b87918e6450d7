import type { CallerStates } from './auth/caller-states';
import type { ProviderDirectory } from './auth/oidc/provider-directory';
import type { OidcProvider } from './auth/oidc/providers';
import type { SearchTurns } from './http/routing/search-turns';
import type { RequestBudget } from './auth/request-budget';
import type { UserStore } from './auth/stores/user-store';
import type { TokenService } from './auth/tokens';
import type { Config } from './config/config';
import type { ModuleDefinition } from './http/routing/route';
import type { Lifecycle } from './lifecycle/lifecycle';
import type { Logger } from './logger';
import type { StoreDefinition } from './stores/kit/definition';
import type { AnyStoreDefinition } from './stores/kit/registry';
import type { Metrics } from './observability/metrics';
import type { Database } from './stores/types';

/** Everything the entry point wires once and hands to the app and to each module. */
export interface Services {
  config: Config;
  logger: Logger;
  database: Database;
  tokens: TokenService;
  /** Who can log in (USER_STORE): the demo user, or the database's users table/collection. */
  users: UserStore;
  /** The users' current state, for the guards: a changed user must be `forget`-ed here (docs/decisions/009). */
  callers: CallerStates;
  /** The per-user request budget on authenticated routes (USER_RATE_LIMIT_MAX); undefined when off. */
  requestBudget?: RequestBudget;
  /** Turns for searches across the process, fair between callers (SEARCH_CONCURRENCY_MAX); undefined when off. */
  searchTurns?: SearchTurns;
  lifecycle: Lifecycle;
  /** Prometheus metrics when METRICS_PORT is set; otherwise `metricsOff`, whose calls do nothing. */
  metrics: Metrics;
  /** The OpenID Connect providers (OIDC_PROVIDERS) and which are discovered; undefined when none is configured. */
  oidc?: ProviderDirectory<OidcProvider>;
}

/**
 * A module is built from the services, so it can reach stores and settings without globals. A module that
 * keeps data lists its stores: the service opens them on the configured database (and migrates them)
 * before the module is built, and the module gets them with `services.database.store(definition)`.
 * Code that wraps a factory must keep its stores: `defineModule(factory.stores ?? [], ...)`.
 */
export interface ModuleFactory {
  (services: Services): ModuleDefinition;
  readonly stores?: readonly AnyStoreDefinition[];
}

/** A module factory that owns these stores (see ModuleFactory). */
export function defineModule(
  stores: readonly StoreDefinition<unknown>[],
  factory: (services: Services) => ModuleDefinition,
): ModuleFactory {
  return Object.assign((services: Services) => factory(services), { stores });
}

/** Every store the modules own, in module order: what the database opens and migrates. */
export function storesOf(modules: readonly ModuleFactory[]): AnyStoreDefinition[] {
  return [...new Set(modules.flatMap((module) => module.stores ?? []))];
}
