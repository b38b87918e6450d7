import { randomUUID } from 'node:crypto';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Lifecycle } from '../../lifecycle/lifecycle';
import type { Logger } from '../../logger';
import { clientIp } from '../client-ip';
import type { RequestState } from '../routing/route';
import { appendAnswerHeaders, setHeaders, writeAnswer } from '../json-answer';
import type { ErrorAnswers } from './error-handler';
import type { DefaultHeaders } from './security';

// A caller's id is kept when it is short and plain, so traces join up across services; anything else
// (too long, odd characters that could forge log lines) is replaced by a fresh UUID.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_PATHS = new Set(['/health/live', '/health/ready']);

/** What every request gets besides its id and log line, run inside the request context's one async frame. */
export interface RequestSteps {
  /** Headers every answer carries (security.ts: helmet's, Vary), added once the chain has run. */
  headers: DefaultHeaders;
  /** CORS around the rest of the chain (security.ts). */
  cors: Middleware<RequestState>;
  /** Errors and bodiless error statuses as the fail envelope (error-handler.ts). */
  errors: ErrorAnswers;
}

/**
 * The outermost step of every request, one middleware rather than five because it runs on every request
 * (each async layer costs a frame, a promise and a closure per request: docs/performance.md):
 * - request id: taken from X-Request-Id when sane, else new; on ctx.state and echoed on the response;
 * - CORS around the rest of the chain;
 * - error handling: the only try/catch; any error below becomes the fail envelope;
 * - the answer: an envelope written with every header in one go, or (a body set the Koa way) the headers set
 *   for Koa's respond: the id, the security headers the chain did not set, `Vary: Origin`;
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
  // The headers the service adds (names lower case: see headerName in security.ts), after the chain's own: with
  // an envelope, written with it in one go; otherwise set for Koa's respond, which writes whatever body was set.
  const writeHeaders = (ctx: ParameterizedContext<RequestState>, id: string) => {
    const list = ['x-request-id', id];
    headers.append(ctx, list);
    appendAnswerHeaders(ctx, list);
    if (lifecycle.shuttingDown) list.push('connection', 'close');
    if (!writeAnswer(ctx, list) && !ctx.headerSent) setHeaders(ctx.res, list);
  };
  return async (ctx, next) => {
    const started = performance.now();
    const given = ctx.req.headers['x-request-id'];
    const id = typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    try {
      await cors(ctx, next);
      errors.settle(ctx);
    } catch (error) {
      errors.answer(ctx, error);
    }
    try {
      writeHeaders(ctx, id);
    } finally {
      const level = QUIET_PATHS.has(ctx.path) ? 'debug' : 'info';
      if (lines.isLevelEnabled(level)) {
        const ms = Math.round((performance.now() - started) * 100) / 100;
        lines[level](
          { reqId: id, ip: clientIp(ctx), method: ctx.method, path: ctx.path, status: ctx.status, ms },
          'request',
        );
      }
    }
  };
}
