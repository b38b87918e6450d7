import { Type, type TProperties } from '@sinclair/typebox';
import { RECOVERY_CODE_COUNT } from '../../auth/mfa/recovery-codes';
import type { FactorAnswer, SecondFactor } from '../../auth/mfa/second-factor';
import type { TwoFactorLogin } from '../../auth/mfa/two-factor-login';
import { unauthorized } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { callerOf } from '../../http/routing/caller';
import { route } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { tooManyAttempts } from './caller-password';
import { readDeviceCookie } from './cookie';
import { mfaEnrolmentRoutes, type MfaEnrolmentRouteDeps } from './mfa-enrolment-routes';
import { accessTokenSchema, recoveryCodeSchema, totpCodeSchema } from './schemas';
import { REFRESH_COOKIE_HEADER, signIn, type SignInDeps } from './sign-in';

/** What the two-factor routes use: the flows (src/auth/mfa) and the HTTP plumbing of a login's end. */
export interface MfaRouteDeps extends SignInDeps, MfaEnrolmentRouteDeps {
  events: AuthEvents;
  factors: SecondFactor;
  twoFactorLogin: TwoFactorLogin;
}

/** The second factor: a code, or a recovery code (each a branch, so the document and the types say "one of"). */
const factorSchemas = <T extends TProperties>(rest: T) =>
  Type.Union([
    Type.Object({ ...rest, code: totpCodeSchema }),
    Type.Object({ ...rest, recoveryCode: recoveryCodeSchema }),
  ]);
const answerOf = (body: { code: string } | { recoveryCode: string }): FactorAnswer =>
  'code' in body ? { code: body.code } : { recoveryCode: body.recoveryCode };

const RETRY_AFTER = { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] };
const WRONG_CODE = 'Wrong, expired or already used code';
const BAD_MFA_TOKEN = 'Invalid, expired or used mfaToken: log in again';
const USED_CODE = 'This code was used already: wait for the next one';

/**
 * Two-factor login (TOTP), with MFA_ENCRYPTION_KEY (docs/accounts.md): its status, the second step of a login
 * (TwoFactorLogin), and turning it on and off (mfa-enrolment-routes.ts). The flows' order and rules live there.
 */
export function mfaRoutes(deps: MfaRouteDeps) {
  const { events, factors, twoFactorLogin } = deps;
  return [
    route({
      method: 'GET',
      path: '/mfa',
      access: 'authenticated',
      summary: "Whether the caller's login asks for a second factor, and how many recovery codes are left",
      responses: {
        200: Type.Object({
          enabled: Type.Boolean(),
          recoveryCodesLeft: Type.Integer({ minimum: 0, maximum: RECOVERY_CODE_COUNT }),
        }),
      },
      handler: async (ctx) => factors.status(callerOf(ctx).id),
    }),
    route({
      method: 'POST',
      path: '/mfa/verify',
      access: 'public', // the mfaToken from login is the credential
      summary:
        'The second step of a login with two-factor login on: the mfaToken and a code (or a recovery code) give the normal login answer',
      description:
        'An mfaToken signs in once: after its first successful verify it is refused (401), on every replica.',
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
          events.record(ctx, {
            action: 'mfa-verify',
            outcome: 'refused',
            reason: outcome.refused,
            userId: outcome.userId,
          });
          const tokenRefused =
            outcome.refused === 'invalid-token' ||
            outcome.refused === 'session-ended' ||
            outcome.refused === 'spent-token';
          throw unauthorized(
            tokenRefused ? BAD_MFA_TOKEN : outcome.refused === 'replayed-code' ? USED_CODE : WRONG_CODE,
          );
        }
        const { user } = outcome;
        const answer = await signIn(
          ctx,
          deps,
          user,
          deps.throttle.knowsDevice(user, readDeviceCookie(ctx)),
          outcome.proof,
        );
        events.record(ctx, { action: 'mfa-verify', outcome: 'success', userId: user.id, via: outcome.via });
        return answer;
      },
    }),
    ...mfaEnrolmentRoutes(deps),
  ];
}
