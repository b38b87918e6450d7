import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { UNMATCHED_ROUTE, type HttpMetrics } from '../../observability/metrics';
import type { RequestState } from '../routing/route';

/**
 * The route label of a request: the template of the declared route that matched (`/api/notes/:id`, set by
 * @koa/router on ctx._matchedRoute), never the raw path. A request answered before routing (the auth rate
 * limit's 429) or with 405 is given the template of the route whose path it matches; anything else is
 * UNMATCHED_ROUTE. So the label takes only as many values as there are declared routes, plus one.
 */
function routeTemplate(
  ctx: { _matchedRoute?: unknown; path: string; method: string },
  router: Router<RequestState>,
): string {
  if (typeof ctx._matchedRoute === 'string') return ctx._matchedRoute;
  const { path } = router.match(ctx.path, ctx.method); // only for requests the router did not answer
  const layer = path.findLast((candidate) => candidate.methods.length > 0);
  return layer ? String(layer.path) : UNMATCHED_ROUTE;
}

/**
 * Records every request in `http_server_request_duration_seconds` (method, route template, status class).
 * Outermost, so the time covers the whole chain; the duration ends when the response is decided, as in
 * the request log line. Added only when metrics are on.
 */
export function requestMetrics(metrics: HttpMetrics, router: Router<RequestState>): Middleware<RequestState> {
  return async function recordRequest(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      // The error handler below turns every error into a status, so ctx.status is the answer's.
      metrics.request(
        ctx.method,
        routeTemplate(ctx as typeof ctx & { _matchedRoute?: unknown }, router),
        ctx.status,
        (performance.now() - started) / 1000,
      );
    }
  };
}
