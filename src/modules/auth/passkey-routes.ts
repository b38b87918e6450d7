import { Type, type Static } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import type { MfaTokenRefusal, TwoFactorLogin } from '../../auth/mfa/two-factor-login';
import type { AccountSessions } from '../../auth/account-sessions';
import { AMR, without } from '../../auth/owner-proof/proofs';
import type { PasskeyEnrolment, RegisterOutcome, RemoveOutcome } from '../../auth/passkeys/passkey-enrolment';
import type { PasskeyLogin, PasskeyLoginRefusal } from '../../auth/passkeys/passkey-login';
import type { PasskeyRecord } from '../../auth/stores/passkey-store';
import { HttpError, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { callerOf } from '../../http/routing/caller';
import { route, type ErrorResponses, type ModuleDefinition } from '../../http/routing/route';
import type { AuthEvents, PasskeyRegisterRefusal } from './auth-events';
import { readDeviceCookie, refreshCookie } from './cookie';
import { currentUser, provenOwner, type OwnerGate } from './owner-gate';
import { ceremonyBinding, FLOW_COOKIE_HEADER, readBinding } from './passkey-cookie';
import {
  authenticationCredentialSchema,
  creationOptionsSchema,
  passkeyNameSchema,
  passkeySchema,
  registrationCredentialSchema,
  requestOptionsSchema,
} from './passkey-schemas';
import { EMAIL_NOT_VERIFIED } from './session-refusals';
import { accessTokenSchema, ownerProofSchema } from './schemas';
import { NEW_SESSION_COOKIE_HEADER, REFRESH_COOKIE_HEADER, signIn, type SignInDeps } from './sign-in';

export interface PasskeyRouteDeps extends SignInDeps {
  events: AuthEvents;
  /** The proof of the owner every change to the ways in asks for. */
  gate: OwnerGate;
  /** Removing a passkey ends the account's other sessions. */
  accounts: AccountSessions;
  enrolment: PasskeyEnrolment;
  login: PasskeyLogin;
  /** MFA_ENCRYPTION_KEY set: login options may be asked for the user of an mfaToken (a passkey as the second factor). */
  twoFactor: TwoFactorLogin | undefined;
  challengeTtlMs: number;
  /** The CSRF check of the cookie routes (refresh, logout): the sign-in sets the session cookies. */
  crossSiteGuard: Middleware;
  /** EMAIL_VERIFICATION=required: a passkey signs in only to an account whose address is verified, as a password does. */
  verificationRequired: boolean;
}

/** The mfaToken a passkey answers as the second factor (what POST /api/auth/login answered with `mfaRequired`). */
const mfaTokenSchema = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'The mfaToken of a login waiting for its second factor',
});
const BAD_MFA_TOKEN = new HttpError(401, 'Invalid, expired or used mfaToken: log in again');
/** The second step's refusals that are about the mfaToken, not the passkey. */
const isMfaTokenRefusal = (refused: string): refused is MfaTokenRefusal =>
  refused === 'invalid-token' || refused === 'session-ended' || refused === 'spent-token';
const BAD_CREDENTIAL = (message: string) => unprocessable([{ field: 'credential', message }]);
/** Each refusal of adding a passkey, as the caller is told it. */
const REGISTER_REFUSALS: Record<PasskeyRegisterRefusal, HttpError> = {
  'too-many': new HttpError(409, 'The account has as many passkeys as it may: remove one first'),
  'bad-challenge': BAD_CREDENTIAL(
    'does not answer options issued to this account in this browser, or they expired or were used: ask for new options',
  ),
  'invalid-credential': BAD_CREDENTIAL(
    'could not be verified (origin, relying party, user verification or attestation)',
  ),
  'already-registered': new HttpError(409, 'This passkey is registered already'),
};
/** Each refusal of a passkey sign-in, as the browser is told it: no session, nothing set. */
const LOGIN_REFUSALS: Record<PasskeyLoginRefusal, HttpError> = {
  'bad-challenge': new HttpError(
    401,
    'This sign-in expired, was used already or was started in another browser: start again',
  ),
  'unknown-credential': new HttpError(
    401,
    'This passkey is not registered here (it was removed?): sign in another way',
  ),
  'invalid-credential': new HttpError(401, "The passkey's answer could not be verified"),
  counter: new HttpError(
    401,
    "The passkey's signature counter went backwards: it may have been copied. Sign in another way and remove it",
  ),
  'user-gone': new HttpError(401, 'The account of this passkey no longer exists'),
};
const REMOVE_REFUSALS: Record<Exclude<RemoveOutcome, 'removed'>, HttpError> = {
  'not-found': new HttpError(404, 'No such passkey of the caller'),
  'last-way': new HttpError(
    409,
    'This is the last way to sign in to the account: add another passkey or set a password first',
  ),
  busy: new HttpError(409, "The account's ways to sign in were being changed at the same time: try again"),
};

const view = (passkey: PasskeyRecord) => ({
  id: passkey.id,
  name: passkey.name,
  transports: passkey.transports,
  createdAt: passkey.createdAt.toISOString(),
  lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
});

/**
 * Passkeys (PASSKEYS=true, docs/authentication.md): the HTTP side of PasskeyEnrolment (add with the password
 * or the second factor, list, remove) and PasskeyLogin (usernameless sign-in, or the second factor after a
 * password), ending in the same session as a password login (signIn). The ceremonies' rules live there.
 */
export function passkeyRoutes(deps: PasskeyRouteDeps): ModuleDefinition['routes'] {
  const { events, enrolment, login, cookie, gate } = deps;
  const bind = (ctx: Context) => {
    const { binding, cookie: setCookie } = ceremonyBinding(ctx, cookie, deps.challengeTtlMs);
    ctx.append('Set-Cookie', setCookie);
    return binding;
  };
  const refuseRegistration = (
    ctx: Context,
    userId: string,
    outcome: Exclude<RegisterOutcome, { ok: true }> | { ok: false; refused: 'too-many' },
  ) => {
    events.record(ctx, { action: 'passkey-register', outcome: 'refused', reason: outcome.refused, userId });
    return REGISTER_REFUSALS[outcome.refused];
  };

  return [
    route({
      method: 'GET',
      path: '/passkeys',
      access: 'authenticated',
      summary: "The caller's passkeys, oldest first",
      responses: { 200: Type.Array(passkeySchema) },
      handler: async (ctx) => (await enrolment.list(callerOf(ctx).id)).map(view),
    }),
    route({
      method: 'POST',
      path: '/passkeys/register/options',
      access: 'authenticated',
      summary:
        'Start adding a passkey, with a recent proof of the owner: the options for navigator.credentials.create()',
      description:
        'A change to the ways in: the password (and a code, with two-factor login on) in the body where that signs the account in, else a recent proof ' +
        '(POST /api/auth/reauth), so an access token alone cannot add a passkey. The options ask for a discoverable credential with user verification, ' +
        'attestation `none`; their challenge answers once, for WEBAUTHN_CHALLENGE_TTL, in this browser (the `passkeyFlow` cookie).',
      body: ownerProofSchema,
      responses: { 200: creationOptionsSchema },
      responseHeaders: { 'Set-Cookie': FLOW_COOKIE_HEADER },
      errors: { ...gate.errors, 409: 'The account already has the most passkeys it may' },
      before: [gate.proven((body: Static<typeof ownerProofSchema>) => body)],
      handler: async (ctx) => {
        const { user } = provenOwner(ctx);
        const outcome = await enrolment.options(user, bind(ctx));
        if (!outcome.ok) throw refuseRegistration(ctx, user.id, outcome);
        events.record(ctx, { action: 'passkey-register', outcome: 'started', userId: user.id });
        return outcome.options;
      },
    }),
    route({
      method: 'POST',
      path: '/passkeys/register/verify',
      access: 'authenticated',
      summary: 'Finish adding a passkey: the new credential (its toJSON()) and a name; answers the passkey',
      description: 'With mail configured, the address is told that a passkey was added.',
      body: Type.Object({ credential: registrationCredentialSchema, name: Type.Optional(passkeyNameSchema) }),
      responses: { 201: passkeySchema },
      errors: {
        401: {
          description: 'The session ended (on any replica) since the options were given',
          headers: { 'WWW-Authenticate': FRAMEWORK_HEADERS['WWW-Authenticate'] },
        },
        409: 'This credential is registered already',
        422: 'The credential does not answer options issued to the caller in this browser (expired, used, or never asked), or does not verify (`credential`)',
      },
      before: [gate.current],
      handler: async (ctx) => {
        const user = currentUser(ctx);
        const { credential, name } = ctx.request.body;
        const outcome = await enrolment.register(user, credential, name?.trim() || 'Passkey', readBinding(ctx));
        if (!outcome.ok) throw refuseRegistration(ctx, user.id, outcome);
        events.record(ctx, {
          action: 'passkey-register',
          outcome: 'success',
          userId: user.id,
          passkeyId: outcome.passkey.id,
        });
        return view(outcome.passkey);
      },
    }),
    route({
      method: 'DELETE',
      path: '/passkeys/:id',
      access: 'authenticated',
      summary:
        'Remove one of the caller’s passkeys (it no longer signs in), with a recent proof of the owner: every other session ends',
      description:
        'A change to the ways in (POST /api/auth/reauth first when the proof is not recent). Every other session of the account ends (a session the lost ' +
        'device opened among them); the caller goes on with a new refresh cookie: POST /api/auth/refresh gives the next access token. With mail ' +
        'configured, the address is told that a passkey was removed.',
      params: Type.Object({
        id: Type.String({ maxLength: 36, description: 'A passkey id from GET /api/auth/passkeys' }),
      }),
      responses: { 204: null },
      responseHeaders: { 'Set-Cookie': NEW_SESSION_COOKIE_HEADER },
      errors: {
        ...gate.errors,
        404: 'No such passkey of the caller',
        409: 'It is the last way to sign in (no password, no provider, no other passkey); or (MongoDB) other changes of the account’s ways in kept racing it: try again',
      },
      before: [gate.proven()],
      handler: async (ctx) => {
        const { user, proof } = provenOwner(ctx);
        const outcome = await enrolment.remove(user, ctx.params.id);
        if (outcome !== 'removed') {
          if (outcome === 'last-way')
            events.record(ctx, {
              action: 'passkey-remove',
              outcome: 'refused',
              userId: user.id,
              passkeyId: ctx.params.id,
            });
          throw REMOVE_REFUSALS[outcome];
        }
        const session = await deps.accounts.restart(user, without(proof, AMR.passkey));
        if (session) ctx.append('Set-Cookie', refreshCookie(session.token, cookie));
        events.record(ctx, { action: 'passkey-remove', outcome: 'success', userId: user.id, passkeyId: ctx.params.id });
        return undefined; // 204
      },
    }),
    route({
      method: 'POST',
      path: '/passkeys/login/options',
      access: 'public',
      summary:
        'Start a sign-in with a passkey: the options for navigator.credentials.get() (usernameless; or, with an mfaToken, the second factor)',
      description:
        'Without a body (or `{}`), any passkey of this site may answer: the browser offers the ones it holds. With `{mfaToken}` (after a right password, for a ' +
        'user with two-factor login on), only that user’s passkeys may: a passkey then stands in for the code. The challenge answers once, in this browser.',
      body: Type.Object({ mfaToken: Type.Optional(mfaTokenSchema) }),
      responses: { 200: requestOptionsSchema },
      responseHeaders: { 'Set-Cookie': FLOW_COOKIE_HEADER },
      errors: { 401: 'The mfaToken is invalid, expired or used already: log in again' },
      before: [deps.crossSiteGuard],
      handler: async (ctx) => {
        const { mfaToken } = ctx.request.body;
        const secondStep = mfaToken === undefined ? undefined : await deps.twoFactor?.pendingUser(mfaToken);
        if (mfaToken !== undefined && !secondStep) throw BAD_MFA_TOKEN;
        return login.options(bind(ctx), secondStep);
      },
    }),
    route({
      method: 'POST',
      path: '/passkeys/login/verify',
      access: 'public', // the passkey's signature over this browser's challenge is the credential
      summary:
        'Finish a sign-in with a passkey: answers as POST /api/auth/login (the access token; the refresh cookie)',
      description:
        'For a second factor, send the `mfaToken` the options were asked with: the answer spends it (once, like POST /api/auth/mfa/verify), and a failed ' +
        'answer gives it back. Without it, an answer to second-factor options finds no challenge.',
      body: Type.Object({ credential: authenticationCredentialSchema, mfaToken: Type.Optional(mfaTokenSchema) }),
      responses: { 200: accessTokenSchema },
      responseHeaders: { 'Set-Cookie': REFRESH_COOKIE_HEADER },
      errors: {
        401:
          'No session: the challenge is unknown to this browser, expired or used already (a replay), the passkey is not registered (removed), its answer does not ' +
          'verify (another origin or relying party, no user verification, a bad signature), or its signature counter went backwards (a copied authenticator); ' +
          'or the mfaToken is invalid, expired or used already',
        ...((deps.verificationRequired
          ? { 403: `EMAIL_VERIFICATION=required and the address is not verified yet: "${EMAIL_NOT_VERIFIED}"` }
          : {}) as ErrorResponses),
      },
      before: [deps.crossSiteGuard],
      handler: async (ctx) => {
        const { credential, mfaToken } = ctx.request.body;
        const binding = readBinding(ctx);
        const outcome =
          mfaToken === undefined
            ? await login.verify(credential, binding)
            : ((await deps.twoFactor?.verifyBy(mfaToken, (secondStep) =>
                login.verify(credential, binding, secondStep),
              )) ?? { ok: false as const, refused: 'invalid-token' as const });
        if (!outcome.ok) {
          if (isMfaTokenRefusal(outcome.refused)) {
            events.record(ctx, {
              action: 'mfa-verify',
              outcome: 'refused',
              reason: outcome.refused,
              userId: outcome.userId,
            });
            throw BAD_MFA_TOKEN;
          }
          events.record(ctx, {
            action: 'passkey-login',
            outcome: 'refused',
            reason: outcome.refused,
            userId: outcome.userId,
          });
          throw LOGIN_REFUSALS[outcome.refused];
        }
        const { user, passkey, proof } = outcome;
        if (deps.verificationRequired && !user.emailVerified) {
          events.record(ctx, { action: 'login', outcome: 'unverified', userId: user.id });
          throw new HttpError(403, EMAIL_NOT_VERIFIED);
        }
        const answer = await signIn(ctx, deps, user, deps.throttle.knowsDevice(user, readDeviceCookie(ctx)), proof);
        events.record(ctx, { action: 'passkey-login', outcome: 'success', userId: user.id, passkeyId: passkey.id });
        return answer;
      },
    }),
  ];
}
