import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { PasskeySignup, SignupOutcome } from '../../auth/passkeys/passkey-signup';
import { conflict, HttpError, unprocessable } from '../../http/errors';
import type { ModuleDefinition } from '../../http/routing/route';
import { route } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { ceremonyBinding, FLOW_COOKIE_HEADER, readBinding } from './passkey-cookie';
import { creationOptionsSchema, passkeyNameSchema, registrationCredentialSchema } from './passkey-schemas';
import { REGISTRATION_ACCEPTED } from './routes';
import { emailSchema, registeredUserSchema } from './schemas';
import type { CookiePolicy } from './cookie';

export interface PasskeySignupRouteDeps {
  signup: PasskeySignup;
  events: AuthEvents;
  cookie: Pick<CookiePolicy, 'secure'>;
  challengeTtlMs: number;
}

const TAKEN = 'This email is already registered';
const applicant = {
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '\\S',
    description: 'The person’s name, as POST /api/auth/register takes it',
  }),
  email: emailSchema,
};
const BAD_CREDENTIAL = (message: string) => unprocessable([{ field: 'credential', message }]);
const REFUSALS: Record<Extract<SignupOutcome, { outcome: 'refused' }>['refused'], HttpError> = {
  'bad-challenge': BAD_CREDENTIAL(
    'does not answer sign-up options issued in this browser for this email and name, or they expired or were used: ask for new options',
  ),
  'invalid-credential': BAD_CREDENTIAL(
    'could not be verified (origin, relying party, user verification or attestation)',
  ),
  'already-registered': new HttpError(409, 'This passkey is registered already'),
};

/**
 * Creating an account with a passkey alone (AUTH_REGISTRATION and PASSKEYS, docs/authentication.md): the HTTP
 * side of PasskeySignup. The answers are POST /api/auth/register's — 202 alike for a new and a taken address
 * with email verification, else 201 with the user or 409 — and, like it, no session: the user then signs in
 * with the passkey (POST /api/auth/passkeys/login/…).
 */
export function passkeySignupRoutes(deps: PasskeySignupRouteDeps): ModuleDefinition['routes'] {
  const { signup, events } = deps;
  const alike = signup.answersAlike;
  const settle = async (
    ctx: Context,
    body: { email: string; name: string; credential: Parameters<PasskeySignup['register']>[1]; passkeyName?: string },
  ) => {
    const outcome = await signup.register(
      body,
      body.credential,
      body.passkeyName?.trim() || 'Passkey',
      readBinding(ctx),
      ctx.state.requestId as string | undefined,
    );
    if (outcome.outcome === 'refused') {
      events.record(ctx, { action: 'passkey-register', outcome: 'refused', reason: outcome.refused });
      throw REFUSALS[outcome.refused];
    }
    if (outcome.outcome === 'taken') {
      events.record(ctx, { action: 'register', outcome: 'taken', email: body.email });
      return outcome;
    }
    events.record(ctx, { action: 'register', outcome: 'success', userId: outcome.user.id });
    events.record(ctx, {
      action: 'passkey-register',
      outcome: 'success',
      userId: outcome.user.id,
      passkeyId: outcome.passkey.id,
    });
    return outcome;
  };
  const verifyBody = Type.Object({
    ...applicant,
    credential: registrationCredentialSchema,
    passkeyName: Type.Optional(passkeyNameSchema),
  });
  const verifyCommon = {
    method: 'POST',
    path: '/passkeys/signup/verify',
    access: 'public',
    summary:
      'Finish creating an account with a passkey alone: the new credential (its toJSON()), with the email and name the options were asked for',
    body: verifyBody,
  } as const;
  const credentialErrors = {
    422: 'The credential does not answer sign-up options issued in this browser for this email and name (expired, used, never asked), or does not verify (`credential`)',
  };

  return [
    route({
      method: 'POST',
      path: '/passkeys/signup/options',
      access: 'public',
      summary:
        'Start creating an account with a passkey alone (no password): the options for navigator.credentials.create()',
      description:
        'The account will have no password: its one way in is the passkey (a password can be set later by a reset link). The options are bound to this ' +
        'browser (the `passkeyFlow` cookie) and to the email and name, and answer once, for WEBAUTHN_CHALLENGE_TTL. ' +
        (alike
          ? 'With email verification on, a taken address gets options like a new one (nothing reveals it).'
          : 'A taken address is a 409 here already.'),
      body: Type.Object(applicant),
      responses: { 200: creationOptionsSchema },
      responseHeaders: { 'Set-Cookie': FLOW_COOKIE_HEADER },
      errors: alike ? {} : { 409: TAKEN },
      handler: async (ctx) => {
        const { binding, cookie } = ceremonyBinding(ctx, deps.cookie, deps.challengeTtlMs);
        const outcome = await signup.options(ctx.request.body, binding);
        if (!outcome.ok) {
          events.record(ctx, { action: 'register', outcome: 'taken', email: ctx.request.body.email });
          throw conflict(TAKEN);
        }
        ctx.append('Set-Cookie', cookie);
        return outcome.options;
      },
    }),
    alike
      ? route({
          ...verifyCommon,
          description:
            'Email verification is on: 202 for a new and a taken address alike (the owner of a taken one is told by mail that someone tried; nothing is made); the mailed link confirms the address.',
          responses: { 202: Type.Object({ message: Type.String({ examples: [REGISTRATION_ACCEPTED] }) }) },
          errors: { 409: 'This passkey is registered already', ...credentialErrors },
          handler: async (ctx) => {
            await settle(ctx, ctx.request.body);
            return { message: REGISTRATION_ACCEPTED };
          },
        })
      : route({
          ...verifyCommon,
          description:
            'Email verification is off: 201 with the user (no session: sign in with the passkey), 409 for a taken address.',
          responses: { 201: registeredUserSchema },
          location: (answer) => `/api/users/${answer.id}`,
          errors: { 409: `${TAKEN}; or this passkey is registered already`, ...credentialErrors },
          handler: async (ctx) => {
            const outcome = await settle(ctx, ctx.request.body);
            if (outcome.outcome !== 'registered') throw conflict(TAKEN);
            const { user } = outcome;
            return { id: user.id, email: user.email, role: user.role, name: user.name }; // never the hash
          },
        }),
  ];
}
