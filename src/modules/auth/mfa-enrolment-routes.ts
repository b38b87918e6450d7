import { Type, type Static } from '@sinclair/typebox';
import { RECOVERY_CODE_COUNT } from '../../auth/mfa/recovery-codes';
import type { TwoFactorEnrolment } from '../../auth/mfa/two-factor-enrolment';
import { conflict, unauthorized, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { route } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { tooManyAttempts } from './caller-password';
import { refreshCookie, type CookiePolicy } from './cookie';
import { currentUser, provenOwner, type OwnerGate } from './owner-gate';
import { ownerProofSchema, totpCodeSchema } from './schemas';
import { NEW_SESSION_COOKIE_HEADER } from './sign-in';

/** What turning two-factor login on and off uses: the flow (src/auth/mfa), the owner's proof, the session cookie. */
export interface MfaEnrolmentRouteDeps {
  events: AuthEvents;
  enrolment: TwoFactorEnrolment;
  gate: OwnerGate;
  cookie: CookiePolicy;
}

const NOT_ON = 'Two-factor login is not on';
const recoveryCodesSchema = Type.Array(Type.String(), {
  minItems: RECOVERY_CODE_COUNT,
  maxItems: RECOVERY_CODE_COUNT,
  description: 'Each works once in place of a code',
});
const ownerProof = (body: Static<typeof ownerProofSchema>) => body;
const CHANGE =
  'A change to the ways in: the password (and a code, with two-factor login on) in the body where that signs the account in, else a recent proof ' +
  '(POST /api/auth/reauth). ';

/**
 * Two-factor login (TOTP), with MFA_ENCRYPTION_KEY (docs/accounts.md): the HTTP side of TwoFactorEnrolment
 * (enrol and disable with a recent proof of the owner, confirm with a first code, new recovery codes). The
 * flows' order and rules live there; who may make the change, in OwnerProofs.
 */
export function mfaEnrolmentRoutes(deps: MfaEnrolmentRouteDeps) {
  const { events, enrolment, gate } = deps;
  return [
    route({
      method: 'POST',
      path: '/mfa/enroll',
      access: 'authenticated',
      summary:
        'Start two-factor login, with a recent proof of the owner: a new secret for an authenticator app (as text and as an otpauth:// URI for a QR code)',
      description: `${CHANGE}Nothing changes at login until POST /api/auth/mfa/confirm accepts a first code. Enrolling again before that replaces the unconfirmed secret.`,
      body: Type.Object({ password: ownerProofSchema.properties.password }),
      responses: {
        200: Type.Object({
          secret: Type.String({ description: 'Base32, 160 bits' }),
          otpauthUrl: Type.String({ description: 'otpauth://totp/<issuer>:<email>?secret=…&issuer=…' }),
        }),
      },
      errors: { ...gate.errors, 409: 'Two-factor login is on already (disable it first)' },
      before: [gate.proven(ownerProof)],
      handler: async (ctx) => {
        const { user } = provenOwner(ctx);
        const outcome = await enrolment.enrol(user);
        if (!outcome.ok) throw conflict('Two-factor login is on already');
        events.record(ctx, { action: 'mfa-enroll', outcome: 'started', userId: user.id });
        return { secret: outcome.secret, otpauthUrl: outcome.otpauthUrl };
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/confirm',
      access: 'authenticated',
      summary:
        'Turn two-factor login on with a first code from the app: answers the recovery codes, shown this once; every other session ends',
      description:
        "On success every session of the user ends (refresh and access tokens, the caller's too) and the caller gets a new refresh cookie: " +
        'POST /api/auth/refresh gives the next access token. With mail configured, the address is told that two-factor login was turned on.',
      body: Type.Object({ code: totpCodeSchema }),
      responses: { 200: Type.Object({ recoveryCodes: recoveryCodesSchema }) },
      responseHeaders: { 'Set-Cookie': NEW_SESSION_COOKIE_HEADER },
      errors: {
        401: 'The session ended (on any replica) since the enrolment began',
        409: 'No enrolment to confirm (POST /api/auth/mfa/enroll first), or it is confirmed already',
        422: 'The code is wrong or expired (`code`); counted with the codes at login',
        429: {
          description: 'Too many wrong codes for this account',
          headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] },
        },
      },
      before: [gate.current],
      handler: async (ctx) => {
        const user = currentUser(ctx);
        const outcome = await enrolment.confirm(user, ctx.request.body.code, ctx.state.session!.proof);
        if (!outcome.ok) {
          if (outcome.refused === 'throttled') throw tooManyAttempts(outcome.retryAfterSeconds, 'wrong codes');
          if (outcome.refused === 'user-gone') throw unauthorized();
          if (outcome.refused === 'no-enrolment')
            throw conflict('No enrolment to confirm: POST /api/auth/mfa/enroll first');
          events.record(ctx, { action: 'mfa-enroll', outcome: 'wrong-code', userId: user.id });
          throw unprocessable([
            { field: 'code', message: 'is wrong or expired: check the device clock and try the current code' },
          ]);
        }
        ctx.append('Set-Cookie', refreshCookie(outcome.session.token, deps.cookie));
        events.record(ctx, { action: 'mfa-enroll', outcome: 'confirmed', userId: user.id });
        return { recoveryCodes: outcome.recoveryCodes };
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/disable',
      access: 'authenticated',
      summary:
        'Turn two-factor login off, with a recent proof of the owner (the password and a code, or a recovery code)',
      description: `${CHANGE}With mail configured, the address is told.`,
      body: ownerProofSchema,
      responses: { 204: null },
      errors: { ...gate.errors, 409: NOT_ON },
      before: [gate.proven(ownerProof)],
      handler: async (ctx) => {
        const { user } = provenOwner(ctx);
        if (!(await enrolment.disable(user)).ok) throw conflict(NOT_ON);
        events.record(ctx, { action: 'mfa-disable', outcome: 'success', userId: user.id });
        return undefined; // 204
      },
    }),
    route({
      method: 'POST',
      path: '/mfa/recovery-codes',
      access: 'authenticated',
      summary:
        'New recovery codes, with a recent proof of the owner: answers ten, shown this once; the old ones stop working',
      description: CHANGE,
      body: ownerProofSchema,
      responses: { 200: Type.Object({ recoveryCodes: recoveryCodesSchema }) },
      errors: { ...gate.errors, 409: NOT_ON },
      before: [gate.proven(ownerProof)],
      handler: async (ctx) => {
        const { user } = provenOwner(ctx);
        const outcome = await enrolment.newRecoveryCodes(user);
        if (!outcome.ok) throw conflict(NOT_ON);
        events.record(ctx, { action: 'mfa-recovery-codes', outcome: 'success', userId: user.id });
        return { recoveryCodes: outcome.recoveryCodes };
      },
    }),
  ];
}
