import { json as readJson } from 'co-body';
import type { Middleware } from 'koa';
import { scan } from 'secure-json-parse';
import { badRequest, HttpError } from '../errors';
import type { RequestState } from '../routing/route';

const JSON_TYPES = ['application/json', 'application/*+json'];

function hasBody(headers: NodeJS.Dict<string | string[]>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** co-body's errors carry a status and a type; give each a clear message of our own. */
function parseFailure(error: Error & { status?: number; type?: string }): HttpError {
  if (error.status === 413 || error.type === 'entity.too.large') return new HttpError(413, 'Request body too large');
  if (error.status === 415 || error.type === 'encoding.unsupported')
    return new HttpError(415, 'Unsupported content encoding');
  if (error.type === 'request.aborted') return new HttpError(400, 'Request body was not received completely');
  return badRequest('Malformed JSON body: an object or array is expected');
}

/**
 * Reads a JSON body for routes that declare a body schema: 415 for any other content type, 413 over the
 * limit, 400 for malformed JSON or a `__proto__` / `constructor.prototype` key (rejected, never merged).
 * No body at all reads as `{}`, so the schema names what is missing.
 *
 * co-body (what koa-body uses for JSON) directly: koa-body would also load formidable for multipart, about
 * 9 MiB of a process that only ever reads JSON (docs/performance.md, "Memory").
 */
export function jsonBody(limitBytes: number): Middleware<RequestState> {
  return async (ctx, next) => {
    if (hasBody(ctx.req.headers)) {
      if (!ctx.is(JSON_TYPES)) throw new HttpError(415, 'Content-Type must be application/json');
      let body: unknown;
      try {
        body = await readJson(ctx.req, { limit: limitBytes, strict: true });
      } catch (error) {
        throw parseFailure(error as Error & { status?: number; type?: string });
      }
      try {
        scan(body as object, { protoAction: 'error', constructorAction: 'error' });
      } catch {
        throw badRequest('Forbidden property name in JSON body: "__proto__" and "constructor.prototype" are refused');
      }
      ctx.request.body = body;
    }
    ctx.request.body ??= {};
    await next();
  };
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, on routes that declare one (jsonBody); `{}` when none was sent. */
    body?: unknown;
  }
}
