import type { CredentialVerifier } from '../../auth/credentials';
import type { LoginThrottle } from '../../auth/login-throttle';
import { passwordRefusal } from '../../auth/password-policy';
import type { PasswordHasher } from '../../auth/passwords';
import type { RefreshSessions } from '../../auth/refresh-sessions';
import type { AuthUser, TokenService } from '../../auth/tokens';
import { clientBucket } from '../../http/client-ip';
import { conflict, HttpError, unauthorized, unavailable, unprocessable } from '../../http/errors';
import { route, type ModuleDefinition } from '../../http/routing/route';
import { DuplicateKeyError } from '../../stores/errors';
import type { UserStore } from '../../stores/types';
import { clearedRefreshCookie, readRefreshCookie, refreshCookie, type CookiePolicy } from './cookie';
import type { AuthEvents } from './auth-events';
import { rejectCrossSite } from './csrf';
import { RETRY_WHEN_UNAVAILABLE_SECONDS } from './rate-limit';
import { loginSchema, registerSchema, type LoginBody, type RegisterBody } from './schemas';

export interface AuthRouteDeps {
  tokens: TokenService;
  users: UserStore;
  credentials: CredentialVerifier;
  sessions: RefreshSessions;
  hasher: PasswordHasher;
  cookie: CookiePolicy;
  events: AuthEvents;
  throttle: LoginThrottle;
  corsOrigins: readonly string[];
  /** The service's own origin from PUBLIC_URL, when configured (the CSRF check trusts it over the Host). */
  publicOrigin: string | undefined;
  registrationEnabled: boolean;
  passwordMinLength: number;
}

/** The body of login and refresh: a new access token (never cached: the module sets no-store on every answer). */
function accessTokenResponse(tokens: TokenService, user: AuthUser) {
  return { accessToken: tokens.signAccessToken(user), tokenType: 'Bearer', expiresIn: tokens.accessTtlSeconds };
}

/**
 * The throttle's counters live where the rate limit's do. If they cannot be reached, login fails closed
 * (503) like the rate limiter, which has already logged the outage: it ran first on the same store.
 */
async function counted<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch {
    throw unavailable(RETRY_WHEN_UNAVAILABLE_SECONDS);
  }
}

export function authRoutes(deps: AuthRouteDeps): ModuleDefinition['routes'] {
  const { tokens, users, credentials, sessions, hasher, cookie, events, throttle } = deps;
  const crossSiteGuard = rejectCrossSite(deps.corsOrigins, deps.publicOrigin);
  /** Every refresh failure: 401 and the cookie removed, so the browser stops sending a dead token. */
  const clearedCookie = clearedRefreshCookie(cookie); // the same header every time: built once
  const refreshRefused = () => new HttpError(401, 'Invalid or expired refresh token', { headers: { 'Set-Cookie': clearedCookie } });

  const routes: ModuleDefinition['routes'] = [
    route<LoginBody>({
      method: 'POST',
      path: '/login',
      access: 'public',
      body: loginSchema,
      handler: async (ctx) => {
        const { email, password } = ctx.request.body;
        const client = clientBucket(ctx);
        // Checked before the password, so a throttled guess costs no argon2 work and learns nothing.
        const retryAfter = await counted(throttle.retryAfterSeconds(email, client));
        if (retryAfter !== undefined) {
          events.record(ctx, { action: 'login', outcome: 'throttled', email });
          throw new HttpError(429, `Too many failed logins for this account; try again in ${retryAfter} seconds`, {
            headers: { 'Retry-After': String(retryAfter) },
          });
        }
        const check = await credentials.verify(email, password);
        if (!check.ok) {
          await counted(throttle.failed(email, client));
          events.record(ctx, { action: 'login', outcome: 'failure', userId: check.userId, email });
          throw unauthorized('Invalid email or password'); // one message: unknown user and wrong password alike
        }
        const { user } = check;
        await counted(throttle.succeeded(email, client));
        const issued = await sessions.issue(user.id);
        ctx.append('Set-Cookie', refreshCookie(issued.token, cookie));
        events.record(ctx, { action: 'login', outcome: 'success', userId: user.id });
        return accessTokenResponse(tokens, { id: user.id, role: user.role });
      },
    }),
    route({
      method: 'POST',
      path: '/refresh',
      access: 'public', // the cookie is the credential
      before: [crossSiteGuard],
      handler: async (ctx) => {
        const token = readRefreshCookie(ctx);
        const session = token ? await sessions.ownerOf(token) : { refused: 'missing-cookie' as const };
        if ('refused' in session) {
          events.record(ctx, { action: 'refresh', outcome: 'refused', reason: session.refused });
          throw refreshRefused();
        }
        // The user may have been deleted, or their role changed, since login: read them again.
        const user = await users.findById(session.userId);
        if (!user) {
          events.record(ctx, { action: 'refresh', outcome: 'refused', reason: 'user-gone', userId: session.userId });
          throw refreshRefused();
        }
        events.record(ctx, { action: 'refresh', outcome: 'success', userId: user.id });
        return accessTokenResponse(tokens, { id: user.id, role: user.role });
      },
    }),
    route({
      method: 'POST',
      path: '/logout',
      access: 'authenticated',
      before: [crossSiteGuard],
      handler: async (ctx) => {
        const caller = ctx.state.user;
        if (!caller) throw unauthorized(); // unreachable: the token check ran first
        const token = readRefreshCookie(ctx);
        // Someone else's token in the cookie is left alone: a caller can only end their own session.
        const revoked = token ? await sessions.revoke(token, caller.id) : false;
        ctx.append('Set-Cookie', clearedCookie);
        events.record(ctx, { action: 'logout', outcome: 'success', userId: caller.id, revoked });
        return undefined; // 204
      },
    }),
  ];

  if (deps.registrationEnabled) {
    // The seed's "registration customisation": off unless AUTH_REGISTRATION=true (with USER_STORE=database).
    routes.push(
      route<RegisterBody>({
        method: 'POST',
        path: '/register',
        access: 'public',
        body: registerSchema(deps.passwordMinLength),
        status: 201,
        handler: async (ctx) => {
          const { name, email, password } = ctx.request.body;
          const refusal = passwordRefusal(password, email);
          if (refusal) throw unprocessable([{ field: 'password', message: refusal }]);
          try {
            const user = await users.create({ email, passwordHash: await hasher.hash(password), role: 'user', name: name.trim() });
            events.record(ctx, { action: 'register', outcome: 'success', userId: user.id });
            return { id: user.id, email: user.email, role: user.role, name: user.name }; // never the hash
          } catch (error) {
            if (error instanceof DuplicateKeyError) throw conflict('This email is already registered');
            throw error;
          }
        },
      }),
    );
  }
  return routes;
}
