import cors from '@koa/cors';
import type { Middleware } from 'koa';
import helmet from 'koa-helmet';
import type { RequestState } from '../routing/route';

/** Helmet's defaults: a JSON API serves no HTML, so the strictest content-security policy costs nothing. */
export function securityHeaders(): Middleware<RequestState> {
  return helmet() as unknown as Middleware<RequestState>;
}

/**
 * CORS for the CORS_ORIGINS allow-list only. A listed origin gets credentials (the refresh cookie);
 * any other origin gets no CORS headers at all, so browsers keep it out.
 */
export function corsPolicy(allowedOrigins: readonly string[]): Middleware<RequestState> {
  const allowed = new Set(allowedOrigins);
  return cors({
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
}
