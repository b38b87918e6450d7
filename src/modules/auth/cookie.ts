import type { Context } from 'koa';

// The refresh-token cookie, written by hand rather than through ctx.cookies.set, for two reasons:
//  1. CONTRACT.md fixes its exact form: `refreshToken=<token>; Path=/api/auth; Max-Age=604800; HttpOnly;
//     SameSite=Strict` (+ `; Secure`). The `cookies` module writes `expires=` and lower-case attributes.
//  2. With `secure: true` the `cookies` module throws "Cannot send secure cookie over unencrypted
//     connection" whenever Koa does not see the request as HTTPS: plain-HTTP smoke tests of a production
//     build, or a TLS-terminating proxy without TRUST_PROXY. COOKIE_SECURE is the operator's decision;
//     when it is on, `Secure` is always emitted and the browser, which knows the real scheme, enforces it.

export const REFRESH_COOKIE = 'refreshToken';
/** Sent only to the auth routes: no other route ever sees the refresh token. */
const REFRESH_COOKIE_PATH = '/api/auth';

/** The cookie as an OpenAPI security scheme, named by the routes that take it as their credential. */
export const REFRESH_COOKIE_SCHEME = 'cookieAuth';
export const refreshCookieSecurityScheme = {
  type: 'apiKey',
  in: 'cookie',
  name: REFRESH_COOKIE,
  description: `The refresh token (JWT), set by login as an httpOnly, SameSite=Strict cookie on ${REFRESH_COOKIE_PATH}`,
};

export interface CookiePolicy {
  maxAgeSeconds: number;
  secure: boolean;
}

/** An httpOnly cookie of the auth routes: its name, path and SameSite rule. */
export interface AuthCookie {
  name: string;
  path: string;
  sameSite: 'Strict' | 'Lax';
}

/** The attributes that remove a cookie: expired now. */
export const EXPIRED = ['Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT'];

/** The Set-Cookie value of an auth cookie (`Secure` when the policy says so). */
export function serialiseCookie(
  cookie: AuthCookie,
  value: string,
  attributes: readonly string[],
  secure: boolean,
): string {
  return [
    `${cookie.name}=${value}`,
    `Path=${cookie.path}`,
    ...attributes,
    'HttpOnly',
    `SameSite=${cookie.sameSite}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

const REFRESH: AuthCookie = { name: REFRESH_COOKIE, path: REFRESH_COOKIE_PATH, sameSite: 'Strict' };

/** The Set-Cookie value that stores a refresh token (a JWT: base64url and dots, all legal cookie characters). */
export function refreshCookie(token: string, policy: CookiePolicy): string {
  return serialiseCookie(REFRESH, token, [`Max-Age=${policy.maxAgeSeconds}`], policy.secure);
}

/** The Set-Cookie value that removes the cookie: same name and path, expired. */
export function clearedRefreshCookie(policy: Pick<CookiePolicy, 'secure'>): string {
  return serialiseCookie(REFRESH, '', EXPIRED, policy.secure);
}

/** The refresh token the client sent, if any. */
export function readRefreshCookie(ctx: Pick<Context, 'cookies'>): string | undefined {
  return ctx.cookies.get(REFRESH_COOKIE) || undefined;
}

/**
 * The login-device cookie (src/auth/device-tokens.ts): set at a successful login, sent back to the auth
 * routes, so this client is throttled on its own and not held by an account-wide lock. Half a year: a
 * device that has not logged in for that long is a stranger again.
 */
export const DEVICE_COOKIE = 'loginDevice';
const DEVICE_COOKIE_MAX_AGE_SECONDS = 180 * 86_400;
const DEVICE: AuthCookie = { name: DEVICE_COOKIE, path: REFRESH_COOKIE_PATH, sameSite: 'Strict' };

export function deviceCookie(token: string, policy: Pick<CookiePolicy, 'secure'>): string {
  return serialiseCookie(DEVICE, token, [`Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}`], policy.secure);
}

export function readDeviceCookie(ctx: Pick<Context, 'cookies'>): string | undefined {
  return ctx.cookies.get(DEVICE_COOKIE) || undefined;
}
