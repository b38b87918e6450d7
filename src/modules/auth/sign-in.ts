import type { Context } from 'koa';
import type { LoginThrottle } from '../../auth/login-throttle';
import type { RefreshSessions } from '../../auth/refresh-sessions';
import type { UserRecord } from '../../auth/stores/user-store';
import type { SessionProof } from '../../auth/owner-proof/proofs';
import type { AccessClaims, TokenService } from '../../auth/tokens';
import { deviceCookie, refreshCookie, type CookiePolicy } from './cookie';

/** The body of login and refresh: a new access token (never cached: the module sets no-store on every answer). */
export function accessTokenResponse(tokens: TokenService, user: AccessClaims) {
  return {
    accessToken: tokens.signAccessToken(user),
    tokenType: 'Bearer' as const,
    expiresIn: tokens.accessTtlSeconds,
  };
}

export const REFRESH_COOKIE_HEADER = {
  description:
    'The refresh token: `refreshToken=<JWT>; Path=/api/auth; Max-Age=604800; HttpOnly; SameSite=Strict` (+ `Secure`); ' +
    'for a client that sent no valid device cookie, also `loginDevice=<token>; Path=/api/auth; Max-Age=15552000; HttpOnly; SameSite=Strict` ' +
    '(it keeps the account-wide login lock from holding this client)',
  schema: { type: 'string', pattern: '^(refreshToken|loginDevice)=[^;]+;' },
};

/** The caller's next session, after a change of theirs that ended every other (password, two-factor login, a way in removed). */
export const NEW_SESSION_COOKIE_HEADER = {
  description: 'A new refresh token for the caller (every other session of the user has ended)',
  schema: { type: 'string', pattern: '^refreshToken=[^;]+;' },
};

/** What ends a login: the refresh session, the device cookie, the access token. */
export interface SignInDeps {
  tokens: TokenService;
  sessions: RefreshSessions;
  throttle: LoginThrottle;
  cookie: CookiePolicy;
}

/**
 * The end of every login, with or without a second factor: a refresh session in the httpOnly cookie, carrying
 * how the owner proved it (`proof`), a device cookie for a client new to the account (it is a known device of
 * the account from now on: the account-wide lock no longer holds it), and the access token.
 */
export async function signIn(
  ctx: Pick<Context, 'append'>,
  deps: SignInDeps,
  user: UserRecord,
  knownDevice: boolean,
  proof: SessionProof,
) {
  const issued = await deps.sessions.issue(user, proof);
  ctx.append('Set-Cookie', refreshCookie(issued.token, deps.cookie));
  if (!knownDevice) ctx.append('Set-Cookie', deviceCookie(deps.throttle.deviceToken(user), deps.cookie));
  return accessTokenResponse(deps.tokens, { id: user.id, role: user.role, sessionVersion: user.sessionVersion, proof });
}
