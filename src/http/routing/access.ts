import type { Middleware } from 'koa';
import type { CallerStates } from '../../auth/caller-states';
import { writerRoles, type ResourceAccess } from '../../stores/kit/access-policy';
import type { TokenService } from '../../auth/tokens';
import { forbidden, HttpError } from '../errors';
import type { Admission, TurnTaker } from './request-budget';
import type { Access, RequestState } from './route';

const BEARER = /^Bearer +([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)$/i;

// RFC 6750 §3: a 401 for a protected resource names the scheme; a token that was sent but refused adds why.
const noToken = () =>
  new HttpError(401, 'Missing or malformed bearer token', { headers: { 'WWW-Authenticate': 'Bearer' } });
const badToken = (message = 'Invalid or expired access token') =>
  new HttpError(401, message, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
const REFUSALS = {
  'user-gone': 'This user no longer exists',
  'session-ended': 'This session has ended: log in again',
  'role-changed': 'Your role has changed: refresh the access token',
  unverified:
    'Email address not verified: follow the link sent to it, or ask for a new one (POST /api/auth/resend-verification)',
} as const;

/** What the guards need: the token service, the users' current state, and the per-user budget and turns when on. */
export interface Authenticators {
  tokens: TokenService;
  callers: CallerStates;
  admit?: Admission;
  takeTurn?: TurnTaker;
}

/**
 * Token check: a valid HS256 access token in `Authorization: Bearer …` whose user still exists and whose
 * session is current, else 401. Leaves { id, role } with the role as stored now. With `roles` (a
 * role-restricted route), the user's state is read from the store instead of the short cache. Then the
 * caller's request budget (request-budget.ts), then the role must be one of `roles`, else 403, then the
 * caller's turn (at most USER_CONCURRENCY_MAX of a user's requests run at once). One step for all of it: it
 * runs on every authenticated request, and each async layer costs a frame and a promise.
 */
function requireToken(
  { tokens, callers, admit, takeTurn }: Authenticators,
  roles?: ReadonlySet<string>,
): Middleware<RequestState> {
  const fresh = roles !== undefined;
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    if (!match) throw noToken();
    const claims = tokens.verifyAccessToken(match[1]);
    if (!claims) throw badToken();
    const caller = await callers.authenticate(claims, fresh);
    if (typeof caller === 'string') throw badToken(REFUSALS[caller]);
    ctx.state.user = caller;
    ctx.state.session = claims;
    const admitting = admit?.(ctx, caller);
    if (admitting) await admitting;
    // After the budget: a refused request read the store too, so it counts like any other.
    if (roles && !roles.has(caller.role)) throw forbidden('Your role does not allow this');
    const turn = takeTurn?.(caller);
    if (!turn) return next();
    const release = turn instanceof Promise ? await turn : turn;
    // A client that gave up while waiting gets no work done on its behalf: the turn passes on.
    if (ctx.req.socket?.destroyed) return release();
    try {
      await next();
    } finally {
      release();
    }
  };
}

/** The guards an access rule asks for, in order; a missing or unknown rule is a start-up error. */
export function accessGuards(
  access: Access | undefined,
  auth: Authenticators,
  where: string,
): Middleware<RequestState>[] {
  if (access === 'public') return [];
  if (access === 'authenticated') return [requireToken(auth)];
  if (access && typeof access === 'object' && Array.isArray(access.roles) && access.roles.length > 0) {
    return [requireToken(auth, new Set(access.roles))];
  }
  throw new Error(`${where}: access must be 'public', 'authenticated' or { roles: [...] } with at least one role`);
}

/** A kit resource's access rules for its reads and its writes (actions included), from its declared policy. */
export function routeAccess(access: ResourceAccess): { read: Access; write: Access } {
  const roles = writerRoles(access);
  return { read: access.read === 'public' ? 'public' : 'authenticated', write: roles ? { roles } : 'authenticated' };
}
