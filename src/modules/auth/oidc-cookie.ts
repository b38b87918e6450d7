import type { Context } from 'koa';
import { FLOW_TTL_SECONDS } from '../../auth/oidc/flow-cookie';
import { EXPIRED, serialiseCookie, type AuthCookie, type CookiePolicy } from './cookie';

// The sign-in flow's cookie (src/auth/oidc/flow-cookie.ts): sent only to the OIDC routes, gone after ten
// minutes or at the callback. SameSite=Lax, not Strict: the callback is a top-level navigation coming from
// the provider's site, which a Strict cookie would not accompany (Lax still keeps it off cross-site
// subrequests and POSTs).

const FLOW_COOKIE: AuthCookie = { name: 'oidcFlow', path: '/api/auth/oidc', sameSite: 'Lax' };

export function flowCookie(sealed: string, policy: Pick<CookiePolicy, 'secure'>): string {
  return serialiseCookie(FLOW_COOKIE, sealed, [`Max-Age=${FLOW_TTL_SECONDS}`], policy.secure);
}

export function clearedFlowCookie(policy: Pick<CookiePolicy, 'secure'>): string {
  return serialiseCookie(FLOW_COOKIE, '', EXPIRED, policy.secure);
}

export function readFlowCookie(ctx: Pick<Context, 'cookies'>): string | undefined {
  return ctx.cookies.get(FLOW_COOKIE.name) || undefined;
}
