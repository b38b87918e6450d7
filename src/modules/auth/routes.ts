import type { AccountSessions } from '../../auth/account-sessions';
import type { CallerStates } from '../../auth/caller-states';
import type { CredentialVerifier } from '../../auth/credentials';
import type { LoginThrottle } from '../../auth/login-throttle';
import { PASSWORD_POLICY_REFUSAL, passwordRefusal } from '../../auth/password-policy';
import type { EmailVerification } from '../../auth/email-verification';
import type { Logger } from '../../logger';
import type { PasswordHasher } from '../../auth/passwords';
import type { RefreshSessions } from '../../auth/refresh-sessions';
import type { TokenService } from '../../auth/tokens';
import type { ChallengeTokens } from '../../auth/mfa/challenge-tokens';
import type { SecondFactor } from '../../auth/mfa/second-factor';
import { Type } from '@sinclair/typebox';
import { clientBucket } from '../../http/client-ip';
import { conflict, HttpError, unauthorized, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { callerOf } from '../../http/routing/caller';
import { route, type ErrorResponses, type ModuleDefinition } from '../../http/routing/route';
import { DuplicateKeyError } from '../../stores/errors';
import type { UserStore } from '../../auth/stores/user-store';
import type { AuthEvents } from './auth-events';
import { clearedRefreshCookie, readDeviceCookie, readRefreshCookie, REFRESH_COOKIE_SCHEME, refreshCookie, type CookiePolicy } from './cookie';
import { rejectCrossSite } from './csrf';
import { mfaRoutes } from './mfa-routes';
import { passwordChangeRoute } from './password-route';
import { counted } from './rate-limit';
import { accessTokenSchema, loginSchema, mfaChallengeSchema, registeredUserSchema, registerSchema, STORE_UNAVAILABLE } from './schemas';
import { accessTokenResponse, REFRESH_COOKIE_HEADER, signIn } from './sign-in';

export interface AuthRouteDeps {
  tokens: TokenService;
  users: UserStore;
  credentials: CredentialVerifier;
  sessions: RefreshSessions;
  /** Ends every session of a user (refresh tokens and the access tokens already out). */
  accounts: AccountSessions;
  /** The users' current role and session version (the guards' cache). */
  callers: CallerStates;
  hasher: PasswordHasher;
  cookie: CookiePolicy;
  events: AuthEvents;
  throttle: LoginThrottle;
  corsOrigins: readonly string[];
  /** The service's own origin from PUBLIC_URL, when configured (the CSRF check trusts it over the Host). */
  publicOrigin: string | undefined;
  registrationEnabled: boolean;
  passwordMinLength: number;
  /** EMAIL_VERIFICATION on: registration mails a link. */
  verification?: EmailVerification;
  /** For what fails beside an answer (the verification link of a registration). */
  logger: Logger;
  /** EMAIL_VERIFICATION=required: login waits for it (403 until then). */
  verificationRequired?: boolean;
  /** MFA_ENCRYPTION_KEY set: two-factor login (TOTP) for the users who turn it on. */
  mfa?: { factors: SecondFactor; challenges: ChallengeTokens };
}

/** The login answer for a right password on an address not verified yet (EMAIL_VERIFICATION=required). */
export const EMAIL_NOT_VERIFIED = 'Email address not verified: follow the link sent to it, or ask for a new one (POST /api/auth/resend-verification)';

const CLEARED_COOKIE_HEADER = { description: 'Clears the refresh cookie', schema: { type: 'string', pattern: '^refreshToken=;' } };
const ROTATED_COOKIE_HEADER = {
  description: 'With REFRESH_ROTATION only: the successor refresh token (`refreshToken=<JWT>; Path=/api/auth; Max-Age=<rest of the session>; HttpOnly; SameSite=Strict`)',
  schema: { type: 'string', pattern: '^refreshToken=[^;]+;' },
};


export function authRoutes(deps: AuthRouteDeps): ModuleDefinition['routes'] {
  const { tokens, users, credentials, sessions, hasher, cookie, events, throttle } = deps;
  const crossSiteGuard = rejectCrossSite(deps.corsOrigins, deps.publicOrigin);
  /** Every refresh failure: 401 and the cookie removed, so the browser stops sending a dead token. */
  const clearedCookie = clearedRefreshCookie(cookie); // the same header every time: built once
  const refreshRefused = () => new HttpError(401, 'Invalid or expired refresh token', { headers: { 'Set-Cookie': clearedCookie } });

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
        ...((deps.verificationRequired ? { 403: `EMAIL_VERIFICATION=required and the address is not verified yet: "${EMAIL_NOT_VERIFIED}"` } : {}) as ErrorResponses),
        429: { description: 'Too many failed logins for this account', headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] } },
        503: { description: `${STORE_UNAVAILABLE}, or the login throttle's counters are`, headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] } },
      },
      handler: async (ctx) => {
        const { email, password } = ctx.request.body;
        // Counted before the password is checked, so parallel guesses cannot all pass, and a throttled
        // guess costs no argon2 work and learns nothing.
        const attempt = await counted(throttle.begin(email, clientBucket(ctx), readDeviceCookie(ctx)));
        if (!attempt.allowed) {
          events.record(ctx, { action: 'login', outcome: 'throttled', email });
          throw new HttpError(429, `Too many failed logins for this account; try again in ${attempt.retryAfterSeconds} seconds`, {
            headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
          });
        }
        const check = await throttle.checking(attempt, () => credentials.verify(email, password));
        if (!check.ok) {
          events.record(ctx, { action: 'login', outcome: 'failure', userId: check.userId, email });
          throw unauthorized('Invalid email or password'); // one message: unknown user and wrong password alike
        }
        const { user } = check;
        await counted(throttle.succeeded(attempt));
        if (deps.verificationRequired && !user.emailVerified) {
          // The password was right (so this tells a guesser nothing), but the address is not proven yet.
          events.record(ctx, { action: 'login', outcome: 'unverified', userId: user.id });
          throw new HttpError(403, EMAIL_NOT_VERIFIED);
        }
        if (deps.mfa && (await deps.mfa.factors.enrolled(user.id))) {
          // The password was right; the second factor comes next, at POST /mfa/verify, with this token.
          events.record(ctx, { action: 'login', outcome: 'mfa-required', userId: user.id });
          return { mfaRequired: true as const, mfaToken: deps.mfa.challenges.sign({ userId: user.id, sessionVersion: user.sessionVersion }) };
        }
        const answer = await signIn(ctx, deps, user, attempt.trustedDevice);
        events.record(ctx, { action: 'login', outcome: 'success', userId: user.id });
        return answer;
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
        401: { description: 'Refresh cookie missing, invalid, expired or unknown; the cookie is cleared', headers: { 'Set-Cookie': CLEARED_COOKIE_HEADER } },
        403: 'Cross-site request',
      },
      before: [crossSiteGuard],
      handler: async (ctx) => {
        const token = readRefreshCookie(ctx);
        const session = token ? await sessions.refresh(token) : ({ ok: false, refused: 'missing-cookie' } as const);
        if (!session.ok) {
          if (session.refused === 'reused-token' && session.userId && session.familyId) {
            // A replaced token came back after the grace window: stolen, or its successor was. The family is gone.
            events.record(ctx, { action: 'refresh', outcome: 'reuse-detected', userId: session.userId, familyId: session.familyId });
          } else {
            events.record(ctx, { action: 'refresh', outcome: 'refused', reason: session.refused });
          }
          throw refreshRefused();
        }
        // The user may have been deleted, their role changed or their sessions ended since login: their current
        // state, through the guards' cache (the same bound as every authenticated route: docs/security.md).
        const state = await deps.callers.current(session.userId);
        const user = state && { id: session.userId, ...state };
        if (!user) {
          events.record(ctx, { action: 'refresh', outcome: 'refused', reason: 'user-gone', userId: session.userId });
          throw refreshRefused();
        }
        if (user.sessionVersion !== session.sessionVersion) {
          // Issued before a logout everywhere, a password change or a role change: that session has ended.
          events.record(ctx, { action: 'refresh', outcome: 'refused', reason: 'session-ended', userId: user.id });
          throw refreshRefused();
        }
        if (session.rotated) {
          // The successor lives as long as the family (absolute expiry) or a full lifetime (sliding).
          const maxAgeSeconds = Math.max(1, Math.floor((session.rotated.expiresAt.getTime() - Date.now()) / 1000));
          ctx.append('Set-Cookie', refreshCookie(session.rotated.token, { ...cookie, maxAgeSeconds }));
        }
        events.record(ctx, { action: 'refresh', outcome: 'success', userId: user.id });
        return accessTokenResponse(tokens, user);
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
    ...(deps.mfa ? mfaRoutes(deps, deps.mfa) : []),
  ];

  if (deps.registrationEnabled) {
    // The seed's "registration customisation": off unless AUTH_REGISTRATION=true (with USER_STORE=database).
    routes.push(
      route({
        method: 'POST',
        path: '/register',
        access: 'public',
        summary: 'Create a user (role `user`)',
        body: registerSchema(deps.passwordMinLength),
        responses: { 201: registeredUserSchema },
        location: (user) => `/api/users/${user.id}`, // what an admin reads it at
        errors: { 409: 'The email is already registered', 422: PASSWORD_POLICY_REFUSAL },
        handler: async (ctx) => {
          const { name, email, password } = ctx.request.body;
          const refusal = passwordRefusal(password, { email, name });
          if (refusal) throw unprocessable([{ field: 'password', message: refusal }]);
          try {
            const user = await users.create({ email, passwordHash: await hasher.hash(password), role: 'user', name: name.trim(), emailVerified: false });
            events.record(ctx, { action: 'register', outcome: 'success', userId: user.id });
            // The link goes by mail, beside the answer (the outbox never holds it up).
            if (deps.verification) {
              deps.verification.send(user).catch((error: unknown) => deps.logger.warn({ err: error, reqId: ctx.state.requestId }, 'verification link not sent'));
            }
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
