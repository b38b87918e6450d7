import { Type, type TProperties } from '@sinclair/typebox';
import { RECOVERY_CODE_COUNT, RECOVERY_CODE_PATTERN } from '../../auth/mfa/recovery-codes';
import type { FactorAnswer, SecondFactor } from '../../auth/mfa/second-factor';
import type { TwoFactorEnrolment } from '../../auth/mfa/two-factor-enrolment';
import type { TwoFactorLogin } from '../../auth/mfa/two-factor-login';
import { PASSWORD_INPUT } from '../../auth/password-policy';
import type { UserStore } from '../../auth/stores/user-store';
import { conflict, unauthorized, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { callerOf } from '../../http/routing/caller';
import { route } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { attemptOrigin, storedCaller, tooManyAttempts } from './caller-password';
import { readDeviceCookie, refreshCookie } from './cookie';
import { accessTokenSchema, totpCodeSchema } from './schemas';
import { REFRESH_COOKIE_HEADER, signIn, type SignInDeps } from './sign-in';

/** What the two-factor routes use: the flows (src/auth/mfa) and the HTTP plumbing of a login's end. */
export interface MfaRouteDeps extends SignInDeps {
  users: Pick<UserStore, 'findById'>;
  events: AuthEvents;
  factors: SecondFactor;
  enrolment: TwoFactorEnrolment;
  twoFactorLogin: TwoFactorLogin;
}

const recoveryCodeSchema = Type.String({ pattern: RECOVERY_CODE_PATTERN, examples: ['k7wq-m3xd-p9ta-e2hn'], description: 'One of the recovery codes shown at confirmation (hyphens optional)' });
/** The second factor: a code, or a recovery code (each a branch, so the document and the types say "one of"). */
const factorSchemas = <T extends TProperties>(rest: T) => Type.Union([Type.Object({ ...rest, code: totpCodeSchema }), Type.Object({ ...rest, recoveryCode: recoveryCodeSchema })]);
const answerOf = (body: { code: string } | { recoveryCode: string }): FactorAnswer => ('code' in body ? { code: body.code } : { recoveryCode: body.recoveryCode });
const passwordSchema = Type.Unsafe<string>({ ...PASSWORD_INPUT, description: "The caller's current password" });

const RETRY_AFTER = { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] };
const WRONG_CODE = 'Wrong, expired or already used code';
const WRONG_PASSWORD = 'The password is wrong';
const BAD_MFA_TOKEN = 'Invalid, expired or used mfaToken: log in again';
const USED_CODE = 'This code was used already: wait for the next one';
const NEW_SESSION_COOKIE_HEADER = {
  description: 'A new refresh token for the caller (every other session of the user has ended)',
  schema: { type: 'string', pattern: '^refreshToken=[^;]+;' },
};

/**
 * Two-factor login (TOTP), with MFA_ENCRYPTION_KEY (docs/accounts.md): the HTTP side of TwoFactorEnrolment
 * (enrol with the password, confirm with a first code, disable with the password and a code) and of
 * TwoFactorLogin (the second step of a login). The flows' order and rules live there.
 */
export function mfaRoutes(deps: MfaRouteDeps) {
  const { users, events, factors, enrolment, twoFactorLogin } = deps;
  return [
    route({
      method: 'GET',
      path: '/mfa',
      access: 'authenticated',
      summary: "Whether the caller's login asks for a second factor, and how many recovery codes are left",
      responses: { 200: Type.Object({ enabled: Type.Boolean(), recoveryCodesLeft: Type.Integer({ minimum: 0, maximum: RECOVERY_CODE_COUNT }) }) },
      handler: async (ctx) => factors.status(callerOf(ctx).id),
    }),
    route({
      method: 'POST',
      path: '/mfa/enroll',
      access: 'authenticated',
      summary: 'Start two-factor login, with the current password: a new secret for an authenticator app (as text and as an otpauth:// URI for a QR code)',
      description:
        'The password is checked as at login (counted by the login throttle), so an access token alone cannot add a factor. ' +
        'Nothing changes at login until POST /api/auth/mfa/confirm accepts a first code. Enrolling again before that replaces the unconfirmed secret (after the password check).',
      body: Type.Object({ password: passwordSchema }),
      responses: { 200: Type.Object({ secret: Type.String({ description: 'Base32, 160 bits' }), otpauthUrl: Type.String({ description: 'otpauth://totp/<issuer>:<email>?secret=…&issuer=…' }) }) },
      errors: {
        401: `The password is wrong (counted by the login throttle): "${WRONG_PASSWORD}"`,
        409: 'Two-factor login is on already (disable it first)',
        429: { description: 'Too many failed attempts for this account', headers: RETRY_AFTER },
      },
      handler: async (ctx) => {
        const user = await storedCaller(users, ctx);
        const outcome = await enrolment.enrol(user, ctx.request.body.password, attemptOrigin(ctx));
        if (outcome.ok) {
          events.record(ctx, { action: 'mfa-enroll', outcome: 'started', userId: user.id });
          return { secret: outcome.secret, otpauthUrl: outcome.otpauthUrl };
        }
        if (outcome.refused === 'already-on') throw conflict('Two-factor login is on already');
        events.record(ctx, { action: 'mfa-enroll', outcome: outcome.refused === 'throttled' ? 'throttled' : 'failure', userId: user.id });
        if (outcome.refused === 'throttled') throw tooManyAttempts(outcome.retryAfterSeconds);
        throw unauthorized(WRONG_PASSWORD);
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/confirm',
      access: 'authenticated',
      summary: 'Turn two-factor login on with a first code from the app: answers the recovery codes, shown this once; every other session ends',
      description:
        'On success every session of the user ends (refresh and access tokens, the caller\'s too) and the caller gets a new refresh cookie: ' +
        'POST /api/auth/refresh gives the next access token. With mail configured, the address is told that two-factor login was turned on.',
      body: Type.Object({ code: totpCodeSchema }),
      responses: { 200: Type.Object({ recoveryCodes: Type.Array(Type.String(), { minItems: RECOVERY_CODE_COUNT, maxItems: RECOVERY_CODE_COUNT, description: 'Each works once in place of a code' }) }) },
      responseHeaders: { 'Set-Cookie': NEW_SESSION_COOKIE_HEADER },
      errors: { 409: 'No enrolment to confirm (POST /api/auth/mfa/enroll first), or it is confirmed already', 422: 'The code is wrong or expired (`code`)' },
      handler: async (ctx) => {
        const user = await storedCaller(users, ctx);
        const outcome = await enrolment.confirm(user, ctx.request.body.code);
        if (!outcome.ok) {
          if (outcome.refused === 'user-gone') throw unauthorized();
          if (outcome.refused === 'no-enrolment') throw conflict('No enrolment to confirm: POST /api/auth/mfa/enroll first');
          events.record(ctx, { action: 'mfa-enroll', outcome: 'wrong-code', userId: user.id });
          throw unprocessable([{ field: 'code', message: 'is wrong or expired: check the device clock and try the current code' }]);
        }
        ctx.append('Set-Cookie', refreshCookie(outcome.session.token, deps.cookie));
        events.record(ctx, { action: 'mfa-enroll', outcome: 'confirmed', userId: user.id });
        return { recoveryCodes: outcome.recoveryCodes };
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/verify',
      access: 'public', // the mfaToken from login is the credential
      summary: 'The second step of a login with two-factor login on: the mfaToken and a code (or a recovery code) give the normal login answer',
      description: 'An mfaToken signs in once: after its first successful verify it is refused (401), on every replica.',
      body: factorSchemas({ mfaToken: Type.String({ minLength: 1, maxLength: 2000 }) }),
      responses: { 200: accessTokenSchema },
      responseHeaders: { 'Set-Cookie': REFRESH_COOKIE_HEADER },
      errors: {
        401: `The mfaToken is invalid, expired or used already, also by a verify racing this one (log in again): "${BAD_MFA_TOKEN}"; the code was accepted before (not counted as wrong): "${USED_CODE}"; or the code is wrong: "${WRONG_CODE}"`,
        429: { description: 'Too many wrong codes for this account', headers: RETRY_AFTER },
      },
      handler: async (ctx) => {
        const outcome = await twoFactorLogin.verify(ctx.request.body.mfaToken, answerOf(ctx.request.body));
        if (!outcome.ok) {
          if (outcome.refused === 'throttled') {
            events.record(ctx, { action: 'mfa-verify', outcome: 'throttled', userId: outcome.userId });
            throw tooManyAttempts(outcome.retryAfterSeconds, 'wrong codes');
          }
          events.record(ctx, { action: 'mfa-verify', outcome: 'refused', reason: outcome.refused, userId: outcome.userId });
          const tokenRefused = outcome.refused === 'invalid-token' || outcome.refused === 'session-ended' || outcome.refused === 'spent-token';
          throw unauthorized(tokenRefused ? BAD_MFA_TOKEN : outcome.refused === 'replayed-code' ? USED_CODE : WRONG_CODE);
        }
        const { user } = outcome;
        const answer = await signIn(ctx, deps, user, deps.throttle.knowsDevice(user, readDeviceCookie(ctx)));
        events.record(ctx, { action: 'mfa-verify', outcome: 'success', userId: user.id, via: outcome.via });
        return answer;
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/disable',
      access: 'authenticated',
      summary: 'Turn two-factor login off: needs the password and a code (or a recovery code)',
      body: factorSchemas({ password: passwordSchema }),
      responses: { 204: null },
      errors: {
        401: `The password is wrong (counted by the login throttle), or the code: "${WRONG_CODE}"`,
        409: 'Two-factor login is not on',
        429: { description: 'Too many wrong passwords or codes for this account', headers: RETRY_AFTER },
      },
      handler: async (ctx) => {
        const user = await storedCaller(users, ctx);
        const outcome = await enrolment.disable(user, ctx.request.body.password, answerOf(ctx.request.body), attemptOrigin(ctx));
        if (outcome.ok) {
          events.record(ctx, { action: 'mfa-disable', outcome: 'success', userId: user.id });
          return undefined; // 204
        }
        switch (outcome.refused) {
          case 'not-on':
            throw conflict('Two-factor login is not on');
          case 'throttled':
            throw tooManyAttempts(outcome.retryAfterSeconds);
          case 'throttled-code':
            throw tooManyAttempts(outcome.retryAfterSeconds, 'wrong codes');
          case 'wrong-password':
            events.record(ctx, { action: 'mfa-disable', outcome: 'failure', userId: user.id });
            throw unauthorized(WRONG_PASSWORD);
          case 'wrong-code':
            events.record(ctx, { action: 'mfa-disable', outcome: 'failure', userId: user.id });
            throw unauthorized(WRONG_CODE);
        }
      },
    }),
  ];
}
