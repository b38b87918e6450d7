import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Lifecycle } from '../../lifecycle/lifecycle';
import type { Logger } from '../../logger';
import { clientIp } from '../client-ip';
import type { RequestState } from '../routing/route';

// A caller's id is kept when it is short and plain, so traces join up across services; anything else
// (too long, odd characters that could forge log lines) is replaced by a fresh UUID.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_PATHS = new Set(['/health/live', '/health/ready']);

/**
 * The outermost step of every request, one middleware rather than three because it runs on every request:
 * - request id: taken from X-Request-Id when sane, else new; on ctx.state and echoed on the response;
 * - request log: one line when the response is decided (method, path, status, ms, reqId, client ip); health probes
 *   log at debug so they do not drown the rest;
 * - drain: while shutting down, every answer says `Connection: close`, so keep-alive connections end
 *   with their current request instead of holding the drain open (checked after the request ran, so
 *   requests already in flight when the signal came are covered too).
 */
export function requestContext(logger: Logger, lifecycle: Lifecycle): Middleware<RequestState> {
  // The line has six fixed keys, none of which a redact path names (they name passwords, tokens and
  // headers), so it is written by a child with no redaction: pino's redaction pass costs about as much as
  // writing the line, and found nothing here. Anything added to the line must stay free of secrets.
  const lines = logger.child({}, { redact: [] });
  return async (ctx, next) => {
    const started = performance.now();
    const given = ctx.get('X-Request-Id');
    const id = SANE_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    try {
      await next(); // the error handler below answers every error, so this settles with a response decided
    } finally {
      if (lifecycle.shuttingDown) ctx.set('Connection', 'close');
      const level = QUIET_PATHS.has(ctx.path) ? 'debug' : 'info';
      if (lines.isLevelEnabled(level)) {
        const ms = Math.round((performance.now() - started) * 100) / 100;
        lines[level]({ reqId: id, ip: clientIp(ctx), method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
      }
    }
  };
}
