import type { Context } from 'koa';
import type { CredentialVerifier } from '../../auth/credentials';
import type { PasswordHasher } from '../../auth/passwords';
import type { RefreshSessions } from '../../auth/refresh-sessions';
import type { AuthUser, TokenService } from '../../auth/tokens';
import { conflict, HttpError, unauthorized } from '../../http/errors';
import { route, type ModuleDefinition } from '../../http/routing/route';
import type { AuthMetrics } from '../../observability/metrics';
import { DuplicateKeyError } from '../../stores/errors';
import type { UserStore } from '../../stores/types';
import { clearedRefreshCookie, readRefreshCookie, refreshCookie, type CookiePolicy } from './cookie';
import { rejectCrossSite } from './csrf';
import { loginSchema, registerSchema, type LoginBody, type RegisterBody } from './schemas';

export interface AuthRouteDeps {
  tokens: TokenService;
  users: UserStore;
  credentials: CredentialVerifier;
  sessions: RefreshSessions;
  hasher: PasswordHasher;
  cookie: CookiePolicy;
  corsOrigins: readonly string[];
  registrationEnabled: boolean;
  metrics: AuthMetrics;
}

/** The body of login and refresh: a new access token. Token responses are never cached (RFC 6749 §5.1). */
function accessTokenResponse(ctx: Context, tokens: TokenService, user: AuthUser) {
  ctx.set('Cache-Control', 'no-store');
  return { accessToken: tokens.signAccessToken(user), tokenType: 'Bearer', expiresIn: tokens.accessTtlSeconds };
}

export function authRoutes(deps: AuthRouteDeps): ModuleDefinition['routes'] {
  const { tokens, users, credentials, sessions, hasher, cookie, metrics } = deps;
  const crossSiteGuard = rejectCrossSite(deps.corsOrigins);
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
        const user = await credentials.verify(ctx.request.body.email, ctx.request.body.password);
        if (!user) {
          metrics.login('invalid_credentials');
          throw unauthorized('Invalid email or password'); // one message: unknown user and wrong password alike
        }
        const issued = await sessions.issue(user.id);
        metrics.login('success');
        ctx.append('Set-Cookie', refreshCookie(issued.token, cookie));
        return accessTokenResponse(ctx, tokens, { id: user.id, role: user.role });
      },
    }),
    route({
      method: 'POST',
      path: '/refresh',
      access: 'public', // the cookie is the credential
      before: [crossSiteGuard],
      handler: async (ctx) => {
        const token = readRefreshCookie(ctx);
        const ownerId = token ? await sessions.ownerOf(token) : undefined;
        // The user may have been deleted, or their role changed, since login: read them again.
        const user = ownerId ? await users.findById(ownerId) : null;
        if (!user) {
          metrics.refresh('rejected');
          throw refreshRefused();
        }
        metrics.refresh('success');
        return accessTokenResponse(ctx, tokens, { id: user.id, role: user.role });
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
        if (token) await sessions.revoke(token, caller.id);
        ctx.append('Set-Cookie', clearedCookie);
        ctx.set('Cache-Control', 'no-store');
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
        body: registerSchema,
        status: 201,
        handler: async (ctx) => {
          const { name, email, password } = ctx.request.body;
          try {
            const user = await users.create({ email, passwordHash: await hasher.hash(password), role: 'user', name: name.trim() });
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
