import type { Middleware } from 'koa';
import type { TokenService } from '../../auth/tokens';
import { forbidden, HttpError } from '../errors';
import type { Access, RequestState } from './route';

const BEARER = /^Bearer +([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)$/i;

// RFC 6750 §3: a 401 for a protected resource names the scheme; a token that was sent but refused adds why.
const noToken = () => new HttpError(401, 'Missing or malformed bearer token', { headers: { 'WWW-Authenticate': 'Bearer' } });
const badToken = () =>
  new HttpError(401, 'Invalid or expired access token', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

/** Token check: a valid HS256 access token in `Authorization: Bearer …`, else 401. Leaves { id, role }. */
export function requireToken(tokens: TokenService): Middleware<RequestState> {
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    if (!match) throw noToken();
    const user = tokens.verifyAccessToken(match[1]);
    if (!user) throw badToken();
    ctx.state.user = user;
    await next();
  };
}

/** Role check: runs after the token check, since it needs the caller; 403 unless the role is listed. */
export function requireRole(roles: readonly string[]): Middleware<RequestState> {
  const allowed = new Set(roles);
  return async (ctx, next) => {
    if (!ctx.state.user || !allowed.has(ctx.state.user.role)) throw forbidden('Your role does not allow this');
    await next();
  };
}

/** The guards an access rule asks for, in order; a missing or unknown rule is a start-up error. */
export function accessGuards(access: Access | undefined, tokens: TokenService, where: string): Middleware<RequestState>[] {
  if (access === 'public') return [];
  if (access === 'authenticated') return [requireToken(tokens)];
  if (access && typeof access === 'object' && Array.isArray(access.roles) && access.roles.length > 0) {
    return [requireToken(tokens), requireRole(access.roles)];
  }
  throw new Error(`${where}: access must be 'public', 'authenticated' or { roles: [...] } with at least one role`);
}
