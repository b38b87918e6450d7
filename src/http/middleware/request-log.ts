import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { RequestState } from '../routing/route';

const QUIET_PATHS = new Set(['/health/live', '/health/ready']);

/**
 * One line per request, written when the response is decided: method, path, status, duration, request id.
 * A flat object and no child logger keep it cheap. Health probes log at debug so they do not drown the rest.
 */
export function requestLog(logger: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const level = QUIET_PATHS.has(ctx.path) ? 'debug' : 'info';
      if (logger.isLevelEnabled(level)) {
        logger[level]({
          reqId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 100) / 100,
        }, 'request');
      }
    }
  };
}
