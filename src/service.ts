import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { CallerStates } from './auth/caller-states';
import { createRequestBudget } from './auth/request-budget';
import { PasswordHasher } from './auth/passwords';
import type * as OidcProviders from './auth/oidc/providers';
import { userStore } from './auth/stores/definitions';
import { TokenService } from './auth/tokens';
import type { Config } from './config/config';
import { SearchTurns } from './http/routing/search-turns';
import { createApp } from './http/app';
import { createHttpServer } from './http/http-server';
import type { RequestState } from './http/routing/route';
import { Lifecycle } from './lifecycle/lifecycle';
import { IDLE_RELEASE_MS, IdleMemoryRelease } from './lifecycle/idle-memory-release';
import { releaseMemory } from './lifecycle/release-memory';
import { keepOptimisedCodeWhenIdle } from './lifecycle/idle-code-retention';
import type { Logger } from './logger';
import { modules as registeredModules } from './modules';
import { selectUserStore } from './modules/auth/user-store';
import { startMetricsServer } from './observability/metrics-server';
import { observability } from './observability/observability';
import { storesOf, type ModuleFactory, type Services } from './services';
import { createDatabase } from './stores/create-database';

/** Users whose state one replica keeps for the guards: ~200 bytes each, so about 2 MB at most. */
const CALLER_STATE_ENTRIES = 10_000;

export interface RunningService {
  app: Koa<RequestState>;
  server: Server;
  port: number;
  /** The metrics listener's port, when METRICS_PORT is set. */
  metricsPort: number | undefined;
  services: Services;
  /** Graceful stop: readiness 503, no new connections, in-flight requests finish (bounded), stores close. */
  stop(): Promise<void>;
}

export interface StartOptions {
  modules?: readonly ModuleFactory[];
  /** Overrides config.port (0 picks a free port: tests). */
  port?: number;
  /** Overrides config.metricsPort when metrics are on (0 picks a free port: tests). */
  metricsPort?: number;
  host?: string;
}

/** Who can log in (USER_STORE) and their current state for the guards: built once per service. */
export function userServices(config: Config, database: Services['database']): Pick<Services, 'users' | 'callers'> {
  const users = selectUserStore({ config, database }, new PasswordHasher());
  const verificationRequired = config.mail?.emailVerification === 'required';
  return {
    users,
    callers: new CallerStates(users, {
      ttlMs: config.callerStateTtlMs,
      maxEntries: CALLER_STATE_ENTRIES,
      verificationRequired,
    }),
  };
}

/**
 * The OpenID Connect providers, discovered (with retries) before the app is built. Required here, not
 * imported: openid-client loads only when OIDC_PROVIDERS is set (test/service/loaded-packages.test.ts).
 */
function discoverOidc(settings: NonNullable<Config['oidc']>, logger: Logger) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { discoverProviders } = require('./auth/oidc/providers') as typeof OidcProviders;
  return discoverProviders(settings, logger);
}

/**
 * The app and the services it shares with its modules: the database with the modules' stores, connected
 * (and migrated when MIGRATE_ON_START), the token service, and the lifecycle that closes them. Nothing listens yet. If any
 * step fails, what was opened is closed again before the error is thrown.
 */
export async function openApp(
  config: Config,
  logger: Logger,
  modules: readonly ModuleFactory[],
): Promise<{ app: Koa<RequestState>; services: Services }> {
  const lifecycle = new Lifecycle();
  if (config.env === 'production') {
    // After a burst of sign-ins, once it is over, what it grew is given back as at start-up (idle-memory-release.ts).
    const idle = new IdleMemoryRelease(releaseMemory, IDLE_RELEASE_MS, (ms) =>
      logger.debug({ ms: Math.round(ms) }, 'memory released after sign-ins'),
    );
    lifecycle.heavyWork = idle;
    lifecycle.onClose('memory release after sign-ins', () => idle.close());
  }
  const stores = storesOf(modules);
  // The guards read the users' current state on every authenticated route, whichever modules are mounted.
  if (config.userStore === 'database' && !stores.includes(userStore)) stores.unshift(userStore);
  const connected = createDatabase(config, logger, stores);
  await connected.connect();
  lifecycle.onClose('database', () => connected.close());
  try {
    if (config.database.migrateOnStart) await connected.migrate();
    await connected.checkSchema(); // a declared sort or filter without its index is refused, naming the migration to write
    logger.info({ engine: connected.engine, database: connected.description }, 'database connected');
    const { metrics, database } = observability(config, connected, stores);
    const services: Services = {
      config,
      logger,
      database,
      tokens: new TokenService(config.jwt),
      ...userServices(config, database),
      lifecycle,
      metrics,
    };
    services.requestBudget = createRequestBudget(config, logger, lifecycle);
    if (config.userRateLimit.searchConcurrency > 0)
      services.searchTurns = new SearchTurns(config.userRateLimit.searchConcurrency);
    if (config.oidc) {
      const directory = await discoverOidc(config.oidc, logger);
      lifecycle.onClose('OpenID Connect discovery', async () => directory.close());
      services.oidc = directory;
    }
    return { app: createApp(services, modules), services }; // a bad route declaration throws here
  } catch (error) {
    await lifecycle.closeAll(logger);
    throw error;
  }
}

/** Wires config, logger, stores and the HTTP server; resolves once the server listens. */
export async function startService(
  config: Config,
  logger: Logger,
  options: StartOptions = {},
): Promise<RunningService> {
  const { app, services } = await openApp(config, logger, options.modules ?? registeredModules);
  // A production process idles long after start-up: give back what start-up's burst left (once, before
  // serving, so no request waits for it). Tests and development start services often and need not.
  if (config.env === 'production') {
    logger.debug({ ms: Math.round(releaseMemory()) }, 'start-up memory released');
    keepOptimisedCodeWhenIdle();
  }
  const server = createHttpServer(app);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? config.port, options.host ?? config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await services.lifecycle.closeAll(logger); // e.g. the port is taken: leave no database connection behind
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  logger.info({ host: (server.address() as AddressInfo).address, port, env: config.env }, 'listening');

  let metricsPort: number | undefined;
  if (services.metrics.enabled) {
    try {
      const listener = await startMetricsServer(
        services.metrics,
        options.metricsPort ?? config.metricsPort ?? 0,
        options.host ?? config.host,
      );
      // Closed with the other resources, after the drain: the scraper still sees the last requests.
      services.lifecycle.onClose('metrics listener', listener.close);
      metricsPort = listener.port;
      logger.info({ port: metricsPort }, 'metrics listening');
    } catch (error) {
      server.close();
      await services.lifecycle.closeAll(logger);
      throw error;
    }
  }

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= shutdown(server, services));
  return { app, server, port, metricsPort, services, stop };
}

async function shutdown(server: Server, { config, logger, lifecycle }: Services): Promise<void> {
  lifecycle.beginShutdown();
  if (config.shutdownDelayMs > 0) {
    // Readiness already answers 503; keep accepting for a while so load balancers that poll it (or, on
    // Kubernetes, the endpoint removal) stop sending traffic before the listener closes. Answers meanwhile
    // carry Connection: close, so clients move their keep-alive connections elsewhere.
    logger.info({ delayMs: config.shutdownDelayMs }, 'shutting down: not ready, still accepting');
    await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
  }
  logger.info('shutting down: draining in-flight requests');
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), config.shutdownTimeoutMs);
  });
  if (await Promise.race([closed.then(() => false), timedOut])) {
    logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'drain timed out: closing remaining connections');
    server.closeAllConnections();
    await closed;
  }
  clearTimeout(timer);
  await lifecycle.closeAll(logger);
  logger.info('stopped');
  await new Promise<void>((resolve) => logger.flush(() => resolve())); // the pretty transport writes from a worker
}
