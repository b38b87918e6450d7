import type { Context } from 'koa';
import { PasskeyChallenges } from '../../auth/passkeys/passkey-challenges';
import { serialiseCookie, type AuthCookie, type CookiePolicy } from './cookie';

// The passkey ceremonies' binding (src/auth/passkeys/passkey-challenges.ts): a random value in an httpOnly
// cookie sent only to the passkey routes, so that a challenge answers only in the browser that asked for it.
// SameSite=Strict: every ceremony is a fetch from a page of this site (a front end on another origin of the
// same site included), never a navigation from elsewhere.

/** The ceremonies under /api/auth/passkeys (adding one, signing in), and a re-authentication's (POST /api/auth/reauth). */
export const PASSKEY_FLOW: AuthCookie = { name: 'passkeyFlow', path: '/api/auth/passkeys', sameSite: 'Strict' };
export const REAUTH_FLOW: AuthCookie = { ...PASSKEY_FLOW, path: '/api/auth/reauth' };
const BINDING = /^[A-Za-z0-9_-]{43}$/;

/**
 * The browser's binding (kept: a ceremony in another tab goes on), or a new one; `cookie` is the Set-Cookie
 * value that gives it to the browser for as long as the challenge now issued lives.
 */
export function ceremonyBinding(
  ctx: Pick<Context, 'cookies'>,
  policy: Pick<CookiePolicy, 'secure'>,
  ttlMs: number,
  flow = PASSKEY_FLOW,
): { binding: string; cookie: string } {
  const binding = readBinding(ctx) || PasskeyChallenges.newBinding();
  return { binding, cookie: serialiseCookie(flow, binding, [`Max-Age=${Math.ceil(ttlMs / 1000)}`], policy.secure) };
}

/** The binding the browser sent back with an answer; '' when none (no challenge is issued to it). */
export function readBinding(ctx: Pick<Context, 'cookies'>): string {
  const held = ctx.cookies.get(PASSKEY_FLOW.name); // one name, two paths: the browser sends the one whose path the route is under
  return held && BINDING.test(held) ? held : '';
}

const flowCookieHeader = (path: string) => ({
  description: `The ceremony binding: \`passkeyFlow=<random>; Path=${path}; Max-Age=<WEBAUTHN_CHALLENGE_TTL>; HttpOnly; SameSite=Strict\` (+ \`Secure\`); the verify call must send it back`,
  schema: { type: 'string', pattern: '^passkeyFlow=' },
});
export const FLOW_COOKIE_HEADER = flowCookieHeader(PASSKEY_FLOW.path);
export const REAUTH_FLOW_COOKIE_HEADER = flowCookieHeader(REAUTH_FLOW.path);
