import cors from '@koa/cors';
import type { Context, Middleware } from 'koa';
import helmet from 'koa-helmet';
import type { RequestState } from '../routing/route';

interface HeaderRecorder {
  set: Map<string, string>;
  removed: string[];
}

/**
 * Helmet's defaults, with the content-security policy a JSON API can afford: it serves no HTML, so nothing
 * may load, frame or submit anything (OWASP REST Security). The one HTML page, /docs, sets its own, relaxed
 * policy on its own responses (src/http/openapi/docs-routes.ts).
 */
const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] },
  },
};

/**
 * What helmet does to a response, recorded once at start-up. With no options every header value
 * is a constant (no nonces, nothing read from the request), so running helmet's dozen middleware functions
 * and its promise wrapper on every request only recomputes the same list: see docs/performance.md.
 */
function recordHelmetDefaults(): HeaderRecorder {
  const recorded: HeaderRecorder = { set: new Map(), removed: [] };
  const res = {
    setHeader: (name: string, value: unknown) => recorded.set.set(name, String(value)),
    removeHeader: (name: string) => recorded.removed.push(name),
  };
  // Helmet runs synchronously on the response it is given; the promise only says it called next().
  helmet(HELMET_OPTIONS)({ req: {}, res } as never, () => Promise.resolve()).catch(() => undefined);
  if (recorded.set.size === 0) throw new Error('helmet set no header synchronously: its defaults cannot be recorded');
  return recorded;
}

/**
 * A header name as the service sets it on every response: lower case (names are case-insensitive, RFC 9110
 * §5.1; HTTP/2 sends nothing else) and internalized by V8. Node keys its header table by the lower-cased name:
 * for a name that already is, `toLowerCase` hands back the same string, so the look-up hashes nothing new.
 * A mixed-case name costs a fresh string and a string-table search per header and request: about 3 % of
 * GET /'s CPU for the dozen headers below (docs/performance.md).
 */
function headerName(name: string): string {
  return Object.keys({ [name.toLowerCase()]: true })[0]!;
}

/** The headers the service adds to every response: helmet's (above), and `Vary: Origin` for CORS. */
export interface DefaultHeaders {
  /**
   * Appends them to `list` (name, value, …) for this response: each helmet header the chain did not set itself
   * (a route's own value wins, as the /docs page's policy does), and `Vary: Origin`, merged into a Vary the
   * chain set. Removes what helmet removes. Called once the chain has run, so the answer is written in one go
   * (json-answer.ts).
   */
  append(ctx: Pick<Context, 'res' | 'vary'>, list: string[]): void;
}

export function securityHeaders(): DefaultHeaders {
  const { set, removed } = recordHelmetDefaults();
  const headers = [...set].map(([name, value]) => [headerName(name), value] as const);
  const removedNames = removed.map(headerName);
  const vary = headerName('Vary');
  return {
    append(ctx, list) {
      const { res } = ctx;
      for (const [name, value] of headers) if (!res.hasHeader(name)) list.push(name, value);
      for (const name of removedNames) if (res.hasHeader(name)) res.removeHeader(name);
      // Every answer may differ by Origin (a listed one gets CORS headers), so caches must key on it.
      if (res.hasHeader(vary)) ctx.vary('Origin');
      else list.push(vary, 'Origin');
    },
  };
}

/**
 * CORS for the CORS_ORIGINS allow-list only. A listed origin gets credentials (the refresh cookie);
 * any other origin gets no CORS headers at all, so browsers keep it out.
 */
export function corsPolicy(allowedOrigins: readonly string[]): Middleware<RequestState> {
  const allowed = new Set(allowedOrigins);
  const forListedOrigins = cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    credentials: true,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposeHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
    maxAge: 600,
  }) as unknown as Middleware<RequestState>;
  // Most requests carry no Origin or an unlisted one: for those @koa/cors does nothing but add
  // `Vary: Origin`, which every answer gets anyway (DefaultHeaders): skipping it spares its two awaits.
  return (ctx, next) => {
    const origin = ctx.req.headers.origin;
    return origin !== undefined && allowed.has(origin) ? forListedOrigins(ctx, next) : next();
  };
}
