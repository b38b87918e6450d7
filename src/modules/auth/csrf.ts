import type { Context, Middleware } from 'koa';
import { forbidden } from '../../http/errors';

/**
 * CSRF defence for the routes that act on the refresh cookie (refresh, logout). SameSite=Strict already
 * keeps the cookie off cross-site requests in current browsers; this is the second layer (OWASP: verify
 * the origin with standard headers). Refused with 403:
 *  - an `Origin` that is neither this service's own origin nor listed in CORS_ORIGINS (`null` included);
 *  - `Sec-Fetch-Site: cross-site` or `same-site` unless the Origin is listed.
 * A request with neither header (curl, server-to-server, old browsers) passes: it carries no
 * browser-attached ambient credentials a third-party page could have triggered.
 * "Own origin" is PUBLIC_URL's origin when that is configured. Otherwise it is the scheme and host the request
 * was addressed to, which honour TRUST_PROXY (X-Forwarded-Proto and -Host): behind a proxy, set PUBLIC_URL so
 * the check does not rest on a header the proxy may pass through from the client.
 */
/** The service's origin as this request sees it. (Koa 3's ctx.origin is the Origin *header*, not this.) */
function requestOrigin(ctx: Context): string {
  return `${ctx.protocol}://${ctx.host}`;
}

export function rejectCrossSite(allowedOrigins: readonly string[], publicOrigin: string | undefined): Middleware {
  const allowed = new Set(allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    const listed = origin !== '' && allowed.has(origin);
    if (origin && !listed && origin !== (publicOrigin ?? requestOrigin(ctx)))
      throw forbidden('Cross-site request refused');
    const site = ctx.get('Sec-Fetch-Site').toLowerCase();
    if ((site === 'cross-site' || site === 'same-site') && !listed) throw forbidden('Cross-site request refused');
    await next();
  };
}
