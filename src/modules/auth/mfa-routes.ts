import { Type, type TProperties } from '@sinclair/typebox';
import type { ChallengeTokens } from '../../auth/mfa/challenge-tokens';
import { RECOVERY_CODE_COUNT, RECOVERY_CODE_PATTERN } from '../../auth/mfa/recovery-codes';
import type { FactorAnswer, FactorCheck, SecondFactor } from '../../auth/mfa/second-factor';
import { PASSWORD_INPUT } from '../../auth/password-policy';
import { conflict, HttpError, unauthorized, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { callerOf } from '../../http/routing/caller';
import { route } from '../../http/routing/route';
import { callerPasswordIsRight, storedCaller } from './caller-password';
import { readDeviceCookie } from './cookie';
import { counted } from './rate-limit';
import type { AuthRouteDeps } from './routes';
import { accessTokenSchema, totpCodeSchema } from './schemas';
import { REFRESH_COOKIE_HEADER, signIn } from './sign-in';

const recoveryCodeSchema = Type.String({ pattern: RECOVERY_CODE_PATTERN, examples: ['k7wq-m3xd-p9ta-e2hn'], description: 'One of the recovery codes shown at confirmation (hyphens optional)' });
/** The second factor: a code, or a recovery code (each a branch, so the document and the types say "one of"). */
const factorSchemas = <T extends TProperties>(rest: T) => Type.Union([Type.Object({ ...rest, code: totpCodeSchema }), Type.Object({ ...rest, recoveryCode: recoveryCodeSchema })]);
const answerOf = (body: { code: string } | { recoveryCode: string }): FactorAnswer => ('code' in body ? { code: body.code } : { recoveryCode: body.recoveryCode });

const TOO_MANY = { description: 'Too many wrong codes for this account', headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] } };
const WRONG_CODE = 'Wrong, expired or already used code';

function throttled(check: Extract<FactorCheck, { refused: 'throttled' }>): HttpError {
  return new HttpError(429, `Too many wrong codes for this account; try again in ${check.retryAfterSeconds} seconds`, {
    headers: { 'Retry-After': String(check.retryAfterSeconds) },
  });
}

/**
 * Two-factor login (TOTP), with MFA_ENCRYPTION_KEY (docs/accounts.md): a signed-in user enrols and confirms,
 * after which login answers `{mfaRequired, mfaToken}` and POST /mfa/verify completes it; disabling takes
 * the password and a code. Codes are counted per user like passwords (SecondFactor).
 */
export function mfaRoutes(deps: AuthRouteDeps, mfa: { factors: SecondFactor; challenges: ChallengeTokens }) {
  const { users, events, throttle } = deps;
  const { factors, challenges } = mfa;
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
      summary: 'Start two-factor login: a new secret for an authenticator app (as text and as an otpauth:// URI for a QR code)',
      description: 'Nothing changes at login until POST /api/auth/mfa/confirm accepts a first code. Enrolling again before that replaces the secret.',
      responses: { 200: Type.Object({ secret: Type.String({ description: 'Base32, 160 bits' }), otpauthUrl: Type.String({ description: 'otpauth://totp/<issuer>:<email>?secret=…&issuer=…' }) }) },
      errors: { 409: 'Two-factor login is on already (disable it first)' },
      handler: async (ctx) => {
        const user = await storedCaller(users, ctx);
        const enrolment = await factors.enrol(user);
        if (!enrolment) throw conflict('Two-factor login is on already');
        events.record(ctx, { action: 'mfa-enroll', outcome: 'started', userId: user.id });
        return enrolment;
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/confirm',
      access: 'authenticated',
      summary: 'Turn two-factor login on with a first code from the app: answers the recovery codes, shown this once',
      body: Type.Object({ code: totpCodeSchema }),
      responses: { 200: Type.Object({ recoveryCodes: Type.Array(Type.String(), { minItems: RECOVERY_CODE_COUNT, maxItems: RECOVERY_CODE_COUNT, description: 'Each works once in place of a code' }) }) },
      errors: { 409: 'No enrolment to confirm (POST /api/auth/mfa/enroll first), or it is confirmed already', 422: 'The code is wrong or expired (`code`)' },
      handler: async (ctx) => {
        const userId = callerOf(ctx).id;
        const outcome = await factors.confirm(userId, ctx.request.body.code);
        if (outcome === 'no-enrolment') throw conflict('No enrolment to confirm: POST /api/auth/mfa/enroll first');
        if (outcome === 'wrong-code') {
          events.record(ctx, { action: 'mfa-enroll', outcome: 'wrong-code', userId });
          throw unprocessable([{ field: 'code', message: 'is wrong or expired: check the device clock and try the current code' }]);
        }
        events.record(ctx, { action: 'mfa-enroll', outcome: 'confirmed', userId });
        return { recoveryCodes: outcome };
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/verify',
      access: 'public', // the mfaToken from login is the credential
      summary: 'The second step of a login with two-factor login on: the mfaToken and a code (or a recovery code) give the normal login answer',
      body: factorSchemas({ mfaToken: Type.String({ minLength: 1, maxLength: 2000 }) }),
      responses: { 200: accessTokenSchema },
      responseHeaders: { 'Set-Cookie': REFRESH_COOKIE_HEADER },
      errors: { 401: `The mfaToken is invalid or expired (log in again), or the code is wrong: "${WRONG_CODE}"`, 429: TOO_MANY },
      handler: async (ctx) => {
        const body = ctx.request.body;
        const challenge = challenges.verify(body.mfaToken);
        const user = challenge && (await users.findById(challenge.userId));
        if (!challenge || !user || user.sessionVersion !== challenge.sessionVersion) {
          // Expired, forged, or issued before the user's sessions ended (a password reset meanwhile): log in again.
          events.record(ctx, { action: 'mfa-verify', outcome: 'refused', reason: challenge ? 'session-ended' : 'invalid-token', userId: challenge?.userId });
          throw unauthorized('Invalid or expired mfaToken: log in again');
        }
        const check = await factors.check(user.id, answerOf(body), counted);
        if (!check.ok) {
          if (check.refused === 'throttled') {
            events.record(ctx, { action: 'mfa-verify', outcome: 'throttled', userId: user.id });
            throw throttled(check);
          }
          events.record(ctx, { action: 'mfa-verify', outcome: 'refused', reason: check.refused, userId: user.id });
          throw unauthorized(WRONG_CODE);
        }
        const answer = await signIn(ctx, deps, user, throttle.knowsDevice(user.email, readDeviceCookie(ctx)));
        events.record(ctx, { action: 'mfa-verify', outcome: 'success', userId: user.id, via: check.via });
        return answer;
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/disable',
      access: 'authenticated',
      summary: 'Turn two-factor login off: needs the password and a code (or a recovery code)',
      body: factorSchemas({ password: Type.Unsafe<string>(PASSWORD_INPUT) }),
      responses: { 204: null },
      errors: {
        401: `The password is wrong (counted by the login throttle), or the code: "${WRONG_CODE}"`,
        409: 'Two-factor login is not on',
        429: { description: 'Too many wrong passwords or codes for this account', headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] } },
      },
      handler: async (ctx) => {
        const user = await storedCaller(users, ctx);
        if (!(await factors.enrolled(user.id))) throw conflict('Two-factor login is not on');
        if (!(await callerPasswordIsRight(deps, ctx, user, ctx.request.body.password))) {
          events.record(ctx, { action: 'mfa-disable', outcome: 'failure', userId: user.id });
          throw unauthorized('The password is wrong');
        }
        const check = await factors.check(user.id, answerOf(ctx.request.body), counted);
        if (!check.ok) {
          if (check.refused === 'throttled') throw throttled(check);
          events.record(ctx, { action: 'mfa-disable', outcome: 'failure', userId: user.id });
          throw unauthorized(WRONG_CODE);
        }
        await factors.disable(user.id);
        events.record(ctx, { action: 'mfa-disable', outcome: 'success', userId: user.id });
        return undefined; // 204
      },
    }),
  ];
}
