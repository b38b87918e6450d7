import type { Context } from 'koa';
import { FLOW_TTL_SECONDS } from '../../auth/oidc/flow-cookie';
import type { CookiePolicy } from './cookie';

// The sign-in flow's cookie (src/auth/oidc/flow-cookie.ts): sent only to the OIDC routes, gone after ten
// minutes or at the callback. SameSite=Lax, not Strict: the callback is a top-level navigation coming from
// the provider's site, which a Strict cookie would not accompany (Lax still keeps it off cross-site
// subrequests and POSTs).

export const FLOW_COOKIE = 'oidcFlow';
const FLOW_COOKIE_PATH = '/api/auth/oidc';

function serialise(value: string, maxAge: string[], secure: boolean): string {
  return [`${FLOW_COOKIE}=${value}`, `Path=${FLOW_COOKIE_PATH}`, ...maxAge, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');
}

export function flowCookie(sealed: string, policy: Pick<CookiePolicy, 'secure'>): string {
  return serialise(sealed, [`Max-Age=${FLOW_TTL_SECONDS}`], policy.secure);
}

export function clearedFlowCookie(policy: Pick<CookiePolicy, 'secure'>): string {
  return serialise('', ['Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT'], policy.secure);
}

export function readFlowCookie(ctx: Pick<Context, 'cookies'>): string | undefined {
  return ctx.cookies.get(FLOW_COOKIE) || undefined;
}
