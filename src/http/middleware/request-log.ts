import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { RequestState } from '../routing/route';

const QUIET_PATHS = new Set(['/health/live', '/health/ready']);

/**
 * One line per request, written when the response is decided: method, path, status, duration, request id.
 * A flat object keeps it cheap (the child logger is made once, not per request). Health probes log at debug
 * so they do not drown the rest.
 */
export function requestLog(logger: Logger): Middleware<RequestState> {
  // The line has five fixed keys, none of which a redact path names (they name passwords, tokens and
  // headers), so it is written by a child with no redaction: pino's redaction pass costs about as much as
  // writing the line, and found nothing here. Anything added to the line must stay free of secrets.
  const lines = logger.child({}, { redact: [] });
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const level = QUIET_PATHS.has(ctx.path) ? 'debug' : 'info';
      if (lines.isLevelEnabled(level)) {
        lines[level]({
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
