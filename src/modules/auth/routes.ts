import { PASSWORD_POLICY_REFUSAL } from '../../auth/password-policy';
import { Type } from '@sinclair/typebox';
import type { AccountSessions } from '../../auth/account-sessions';
import type { PasswordLogin } from '../../auth/password-login';
import type { Registration } from '../../auth/registration';
import type { SessionRefresh } from '../../auth/session-refresh';
import { conflict, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { callerOf } from '../../http/routing/caller';
import type { ParsedUrlQuery } from 'node:querystring';
import type { Static } from '@sinclair/typebox';
import { route, type ErrorResponses, type ModuleDefinition, type RouteContext } from '../../http/routing/route';
import { attemptOrigin } from './caller-password';
import { clearedRefreshCookie, readRefreshCookie, REFRESH_COOKIE_SCHEME, refreshCookie } from './cookie';
import { rejectCrossSite } from './csrf';
import { mfaRoutes, type MfaRouteDeps } from './mfa-routes';
import { passwordChangeRoute, type PasswordRouteDeps } from './password-route';
import {
  accessTokenSchema,
  loginSchema,
  mfaChallengeSchema,
  registeredUserSchema,
  registerSchema,
  STORE_UNAVAILABLE,
} from './schemas';
import { EMAIL_NOT_VERIFIED, loginRefused, refreshRefused } from './session-refusals';
import { accessTokenResponse, REFRESH_COOKIE_HEADER, signIn, type SignInDeps } from './sign-in';

/**
 * What the auth routes use: the flows (src/auth: login, refresh, registration, password change, two-factor)
 * and the HTTP plumbing around them. The routes keep the HTTP part: bodies, cookies, statuses, events.
 */
export interface AuthRouteDeps extends SignInDeps, PasswordRouteDeps {
  login: PasswordLogin;
  refresh: SessionRefresh;
  /** Ends every session of a user (refresh tokens and the access tokens already out). */
  accounts: AccountSessions;
  corsOrigins: readonly string[];
  /** The service's own origin from PUBLIC_URL, when configured (the CSRF check trusts it over the Host). */
  publicOrigin: string | undefined;
  /** AUTH_REGISTRATION=true. */
  registration: Registration | undefined;
  /** EMAIL_VERIFICATION=required: login waits for it (403 until then). */
  verificationRequired: boolean;
  /** MFA_ENCRYPTION_KEY set: two-factor login (TOTP) for the users who turn it on. */
  mfa: Pick<MfaRouteDeps, 'factors' | 'enrolment' | 'twoFactorLogin'> | undefined;
}

/** What registration answers, with email verification on, for a new and a taken address alike. */
export const REGISTRATION_ACCEPTED = 'Check your mailbox: a link to confirm the address is on its way';

const CLEARED_COOKIE_HEADER = {
  description: 'Clears the refresh cookie',
  schema: { type: 'string', pattern: '^refreshToken=;' },
};
const ROTATED_COOKIE_HEADER = {
  description:
    'With REFRESH_ROTATION only: the successor refresh token (`refreshToken=<JWT>; Path=/api/auth; Max-Age=<rest of the session>; HttpOnly; SameSite=Strict`)',
  schema: { type: 'string', pattern: '^refreshToken=[^;]+;' },
};

export function authRoutes(deps: AuthRouteDeps): ModuleDefinition['routes'] {
  const { tokens, sessions, cookie, events } = deps;
  const crossSiteGuard = rejectCrossSite(deps.corsOrigins, deps.publicOrigin);
  const clearedCookie = clearedRefreshCookie(cookie); // the same header every time: built once

  const routes: ModuleDefinition['routes'] = [
    route({
      method: 'POST',
      path: '/login',
      access: 'public',
      summary: 'Log in: an access token in the body, the refresh token in an httpOnly cookie',
      body: loginSchema,
      description: deps.mfa
        ? 'For a user with two-factor login on, a right password answers `{mfaRequired: true, mfaToken}` (no access token, no cookie): ' +
          'the login ends at POST /api/auth/mfa/verify with that token and a code.'
        : undefined,
      responses: { 200: deps.mfa ? Type.Union([accessTokenSchema, mfaChallengeSchema]) : accessTokenSchema },
      responseHeaders: { 'Set-Cookie': REFRESH_COOKIE_HEADER },
      errors: {
        401: 'Unknown email or wrong password (one message for both)',
        ...((deps.verificationRequired
          ? { 403: `EMAIL_VERIFICATION=required and the address is not verified yet: "${EMAIL_NOT_VERIFIED}"` }
          : {}) as ErrorResponses),
        429: {
          description: 'Too many failed logins for this account',
          headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] },
        },
        503: {
          description: `${STORE_UNAVAILABLE}, or the login throttle's counters are`,
          headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] },
        },
      },
      handler: async (ctx) => {
        const { email, password } = ctx.request.body;
        const outcome = await deps.login.login(email, password, attemptOrigin(ctx));
        if (outcome.outcome === 'mfa-required') {
          // The second factor comes next, at POST /mfa/verify, with this token.
          events.record(ctx, { action: 'login', outcome: 'mfa-required', userId: outcome.userId });
          return { mfaRequired: true as const, mfaToken: outcome.mfaToken };
        }
        if (outcome.outcome === 'signed-in') {
          const answer = await signIn(ctx, deps, outcome.user, outcome.trustedDevice, outcome.proof);
          events.record(ctx, { action: 'login', outcome: 'success', userId: outcome.user.id });
          return answer;
        }
        const { error, event } = loginRefused(outcome, email);
        events.record(ctx, event);
        throw error;
      },
    }),
    route({
      method: 'POST',
      path: '/refresh',
      access: 'public', // the cookie is the credential
      security: [REFRESH_COOKIE_SCHEME],
      summary: "A new access token for the refresh cookie, carrying the user's current role",
      description:
        'With REFRESH_ROTATION the answer also sets a new refresh cookie and retires the one presented; a retired token ' +
        'presented again after REFRESH_REUSE_GRACE revokes its whole session (401).',
      responses: { 200: accessTokenSchema },
      responseHeaders: { 'Set-Cookie': ROTATED_COOKIE_HEADER },
      errors: {
        401: {
          description: 'Refresh cookie missing, invalid, expired or unknown; the cookie is cleared',
          headers: { 'Set-Cookie': CLEARED_COOKIE_HEADER },
        },
        403: `Cross-site request; or EMAIL_VERIFICATION=required and the address is not verified (the cookie is cleared): "${EMAIL_NOT_VERIFIED}"`,
      },
      before: [crossSiteGuard],
      handler: async (ctx) => {
        const outcome = await deps.refresh.refresh(readRefreshCookie(ctx));
        if (!outcome.ok) {
          const { error, event } = refreshRefused(outcome, clearedCookie);
          events.record(ctx, event);
          throw error;
        }
        if (outcome.rotated) {
          // The successor lives as long as the family (absolute expiry) or a full lifetime (sliding).
          const maxAgeSeconds = Math.max(1, Math.floor((outcome.rotated.expiresAt.getTime() - Date.now()) / 1000));
          ctx.append('Set-Cookie', refreshCookie(outcome.rotated.token, { ...cookie, maxAgeSeconds }));
        }
        events.record(ctx, { action: 'refresh', outcome: 'success', userId: outcome.user.id });
        return accessTokenResponse(tokens, outcome.user);
      },
    }),
    route({
      method: 'POST',
      path: '/logout',
      access: 'authenticated',
      summary: "Log out: deletes the cookie's refresh token (when it is the caller's) and clears the cookie",
      responses: { 204: null },
      responseHeaders: { 'Set-Cookie': CLEARED_COOKIE_HEADER },
      errors: { 403: 'Cross-site request' },
      before: [crossSiteGuard],
      handler: async (ctx) => {
        const caller = callerOf(ctx);
        const token = readRefreshCookie(ctx);
        // Someone else's token in the cookie is left alone: a caller can only end their own session.
        const revoked = token ? await sessions.revoke(token, caller.id) : false;
        ctx.append('Set-Cookie', clearedCookie);
        events.record(ctx, { action: 'logout', outcome: 'success', userId: caller.id, revoked });
        return undefined; // 204
      },
    }),
    route({
      method: 'POST',
      path: '/logout-all',
      access: 'authenticated',
      summary: 'Log out everywhere: ends every session of the caller (refresh and access tokens) and clears the cookie',
      responses: { 204: null },
      responseHeaders: { 'Set-Cookie': CLEARED_COOKIE_HEADER },
      errors: { 403: 'Cross-site request' },
      before: [crossSiteGuard],
      handler: async (ctx) => {
        const caller = callerOf(ctx);
        // Every device: each refresh token of the caller goes, and the access tokens already out stop working.
        const revoked = await deps.accounts.endAll(caller.id);
        ctx.append('Set-Cookie', clearedCookie);
        events.record(ctx, { action: 'logout-all', outcome: 'success', userId: caller.id, revoked });
        return undefined; // 204
      },
    }),
    passwordChangeRoute(deps),
    ...(deps.mfa ? mfaRoutes({ ...deps, ...deps.mfa }) : []),
  ];

  if (deps.registration) routes.push(registrationRoute(deps.registration, deps));
  return routes;
}

/**
 * POST /register (the seed's "registration customisation": AUTH_REGISTRATION=true with USER_STORE=database),
 * the HTTP side of Registration. With email verification on, a new and a taken address get the same 202
 * (docs/accounts.md); without it, 201 with the user, or 409 for a taken address.
 */
function registrationRoute(registration: Registration, deps: Pick<AuthRouteDeps, 'events' | 'passwordMinLength'>) {
  const { events } = deps;
  const body = registerSchema(deps.passwordMinLength);
  const common = {
    method: 'POST',
    path: '/register',
    access: 'public',
    summary: 'Create a user (role `user`)',
    body,
  } as const;
  /** The registration's outcome, recorded; a password the policy refuses is a 422. */
  const settle = async (ctx: RouteContext<Record<string, string>, ParsedUrlQuery, unknown, Static<typeof body>>) => {
    const outcome = await registration.register(ctx.request.body, ctx.state.requestId);
    if (outcome.outcome === 'refused') throw unprocessable([{ field: 'password', message: outcome.message }]);
    if (outcome.outcome === 'taken')
      events.record(ctx, { action: 'register', outcome: 'taken', email: ctx.request.body.email });
    else events.record(ctx, { action: 'register', outcome: 'success', userId: outcome.user.id });
    return outcome;
  };
  // The document declares what this deployment answers (202 with email verification, else 201), so a
  // client generated from it reads `data` as one shape.
  if (registration.answersAlike) {
    return route({
      ...common,
      description:
        'Email verification is on (EMAIL_VERIFICATION, docs/accounts.md): 202 for a new and a taken address alike (the owner of a taken one is told by mail that someone tried); the mailed link completes it.',
      responses: { 202: Type.Object({ message: Type.String({ examples: [REGISTRATION_ACCEPTED] }) }) },
      errors: { 422: PASSWORD_POLICY_REFUSAL },
      handler: async (ctx) => {
        await settle(ctx);
        return { message: REGISTRATION_ACCEPTED };
      },
    });
  }
  return route({
    ...common,
    description: 'Email verification is off: 201 with the user, 409 for a taken address.',
    responses: { 201: registeredUserSchema },
    location: (answer) => `/api/users/${answer.id}`, // what an admin reads it at
    errors: { 409: 'The email is already registered', 422: PASSWORD_POLICY_REFUSAL },
    handler: async (ctx) => {
      const outcome = await settle(ctx);
      if (outcome.outcome !== 'registered') throw conflict('This email is already registered');
      const { user } = outcome;
      return { id: user.id, email: user.email, role: user.role, name: user.name }; // never the hash
    },
  });
}
