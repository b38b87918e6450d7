import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';
/** Statuses that carry no body (RFC 9110 §15.3.5, §15.3.6, §15.4.5): written with no content headers. */
const BODILESS = new Set([204, 205, 304]);

/** Where answerJson leaves the serialised envelope until the request context writes it. */
const PREPARED = Symbol('prepared JSON answer');
/** Headers added with answerHeader, name, value, …, until the request context writes them. */
const PENDING = Symbol('headers for the answer');
type Holder = { [PREPARED]?: string; [PENDING]?: string[] };

/**
 * Answers with an envelope. The envelope is serialised here and written by the request context once the
 * whole chain has run (`writeAnswer`), status line, headers and body in one `writeHead` and one `end`: Koa's
 * body setter and `respond` would set Content-Type and Content-Length one header at a time, and every header
 * set that way costs Node a table entry per request (docs/performance.md, "Changes made for speed").
 * `ctx.body` stays unset; `answered(ctx)` says whether a request has an answer either way. The last call wins.
 */
export function answerJson(ctx: Pick<Context, 'status'>, status: number, body: object): void {
  ctx.status = status;
  (ctx as Holder)[PREPARED] = JSON.stringify(body);
}

/**
 * Adds a header to the answer, whichever way it is written: kept with the request and written with the
 * default headers (request-context.ts) instead of through Node's header table now. For headers every request
 * of a route gets (the request budget's counters); the name is lower case, and not one of the defaults'.
 */
export function answerHeader(ctx: object, name: string, value: string): void {
  const holder = ctx as Holder;
  (holder[PENDING] ??= []).push(name, value);
}

/** Appends the headers added with answerHeader to `list` (name, value, …). */
export function appendAnswerHeaders(ctx: object, list: string[]): void {
  const pending = (ctx as Holder)[PENDING];
  if (pending) list.push(...pending);
}

/** Whether the request has an answer: an envelope from answerJson, or a body set the Koa way (`ctx.body`). */
export function answered(ctx: Pick<Context, 'body'>): boolean {
  return (ctx as Holder)[PREPARED] !== undefined || ctx.body != null;
}

/**
 * Writes the envelope answerJson prepared, with `headers` (name, value, name, value, …: the ones every answer
 * gets; the request context leaves out names the chain set) after any the chain set itself, and tells Koa it
 * is answered. False when there was none to write (a body set the Koa way, or nothing): Koa's `respond` answers
 * then. When the chain set no header, Node writes the list straight into the header block; otherwise the list
 * joins the chain's headers one `setHeader` each (writeHead would remove and append each name instead).
 */
export function writeAnswer(ctx: Pick<Context, 'status' | 'res' | 'respond' | 'writable'>, headers: string[]): boolean {
  const text = (ctx as Holder)[PREPARED];
  if (text === undefined) return false;
  ctx.respond = false;
  if (!ctx.writable || ctx.res.headersSent) return true; // the client went away: nothing to write to
  const { status, res } = ctx;
  const bodiless = BODILESS.has(status);
  if (!bodiless) headers.push('content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(text)));
  if (res.getHeaderNames().length === 0) {
    res.writeHead(status, headers);
  } else {
    setHeaders(res, headers);
    res.writeHead(status);
  }
  if (bodiless) res.end();
  else res.end(text); // a HEAD request's body is left out by Node
  return true;
}

/** Sets a header list (name, value, …) through Node's header table: for an answer Koa's `respond` writes. */
export function setHeaders(res: ServerResponse, headers: readonly string[]): void {
  for (let index = 0; index < headers.length; index += 2) res.setHeader(headers[index]!, headers[index + 1]!);
}
