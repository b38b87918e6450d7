import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { Lifecycle } from '../../lifecycle/lifecycle';
import type { Logger } from '../../logger';
import { clientIp } from '../client-ip';
import type { RequestState } from '../routing/route';
import type { ErrorAnswers } from './error-handler';

// A caller's id is kept when it is short and plain, so traces join up across services; anything else
// (too long, odd characters that could forge log lines) is replaced by a fresh UUID.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_PATHS = new Set(['/health/live', '/health/ready']);

/** What every request gets besides its id and log line, run inside the request context's one async frame. */
export interface RequestSteps {
  /** Headers every answer carries (security.ts: helmet's), set before the chain runs. */
  headers: (res: ServerResponse) => void;
  /** CORS around the rest of the chain (security.ts). */
  cors: Middleware<RequestState>;
  /** Errors and bodiless error statuses as the fail envelope (error-handler.ts). */
  errors: ErrorAnswers;
}

/**
 * The outermost step of every request, one middleware rather than five because it runs on every request
 * (each async layer costs a frame, a promise and a closure per request: docs/performance.md):
 * - request id: taken from X-Request-Id when sane, else new; on ctx.state and echoed on the response;
 * - security headers, then CORS around the rest of the chain;
 * - error handling: the only try/catch; any error below becomes the fail envelope;
 * - request log: one line when the response is decided (method, path, status, ms, reqId, client ip); health probes
 *   log at debug so they do not drown the rest;
 * - drain: while shutting down, every answer says `Connection: close`, so keep-alive connections end
 *   with their current request instead of holding the drain open (checked after the request ran, so
 *   requests already in flight when the signal came are covered too).
 */
export function requestContext(logger: Logger, lifecycle: Lifecycle, steps: RequestSteps): Middleware<RequestState> {
  // The line has six fixed keys, none of which a redact path names (they name passwords, tokens and
  // headers), so it is written by a child with no redaction: pino's redaction pass costs about as much as
  // writing the line, and found nothing here. Anything added to the line must stay free of secrets.
  const lines = logger.child({}, { redact: [] });
  const { headers, cors, errors } = steps;
  return async (ctx, next) => {
    const started = performance.now();
    const given = ctx.req.headers['x-request-id'];
    const id = typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.res.setHeader('x-request-id', id); // lower case: see headerName (security.ts)
    headers(ctx.res);
    try {
      await cors(ctx, next);
      errors.settle(ctx);
    } catch (error) {
      errors.answer(ctx, error);
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
