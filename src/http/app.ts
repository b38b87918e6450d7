import Koa from 'koa';
import type { ModuleFactory, Services } from '../services';
import { declareApi } from './api';
import { errorAnswers } from './middleware/error-handler';
import { requestContext } from './middleware/request-context';
import { requestMetrics } from './middleware/request-metrics';
import { corsPolicy, securityHeaders } from './middleware/security';
import { mountPasskeyPage } from './dev/passkeys-page';
import { mountApiDocs } from './openapi/docs-routes';
import { createRouter, exactRoutes, middlewareOf, modulePrefix, mountRoutes, underPrefix } from './routing/mount';
import { admission, turnTaker } from './routing/request-budget';
import type { RequestState } from './routing/route';

/**
 * Builds the Koa app from the wired services and the modules to mount. Pure: no I/O, no listening, no
 * timers, so tests build as many apps as they like. The entry point (src/server.ts) does the wiring.
 *
 * Order of the way through: request context (id, security headers, CORS, the error handling, log line,
 * Connection: close while stopping) → module-wide middleware (e.g. the auth rate limit) → a route whose path
 * has no parameters, found by one Map look-up → else the router (per
 * route: token → role → params/query/headers → body → validation → handler; /openapi.json and /docs when
 * API_DOCS) → 405 for a known path with another method; the error handler answers 404 when nothing set a
 * response.
 */
export function createApp(services: Services, modules: readonly ModuleFactory[]): Koa<RequestState> {
  const { config, logger, tokens, callers } = services;
  // TRUST_PROXY hops: with 0, X-Forwarded-* is ignored; with N, ctx.ip is the address the Nth proxy saw.
  const app = new Koa<RequestState>({ proxy: config.trustProxy > 0, maxIpsCount: config.trustProxy });
  const router = createRouter();
  const api = declareApi(services, modules); // a bad declaration throws here, naming the route

  if (services.metrics.enabled) app.use(requestMetrics(services.metrics.http, router));
  app.use(
    requestContext(logger, services.lifecycle, {
      headers: securityHeaders(),
      cors: corsPolicy(config.corsOrigins),
      errors: errorAnswers(logger),
    }),
  );
  for (const module of api.modules) {
    if (module.middleware?.length) app.use(underPrefix(modulePrefix(module), module.middleware.map(middlewareOf)));
  }

  const admit = services.requestBudget && admission(services.requestBudget, logger);
  const takeTurn = turnTaker(config.userRateLimit);
  const chains = mountRoutes(router, api.routes, {
    auth: { tokens, callers, admit, takeTurn },
    bodyLimitBytes: config.bodyLimitBytes,
  });
  if (config.apiDocs) mountApiDocs(router, api.document, config.publicUrl);
  if (config.passkeys && config.env !== 'production') mountPasskeyPage(router);
  // Tracing's route spans come from the router's layers: with tracing on, every request goes through it.
  if (!config.tracing) app.use(exactRoutes(chains));
  app.use(router.routes());
  app.use(router.allowedMethods()); // 405 + Allow (or 501); the error handler adds the envelope
  return app;
}
