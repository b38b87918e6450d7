import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { OwnerCheck, OwnerProofs } from '../../auth/owner-proof/owner-proofs';
import type { SessionProof } from '../../auth/owner-proof/proofs';
import type { PasskeyLogin } from '../../auth/passkeys/passkey-login';
import type { UserRecord } from '../../auth/stores/user-store';
import type { TokenService } from '../../auth/tokens';
import { HttpError } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { route, type ModuleDefinition, type RequestState } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { attemptOrigin } from './caller-password';
import { currentUser, refusalAnswer, type OwnerGate } from './owner-gate';
import { ceremonyBinding, readBinding, REAUTH_FLOW, REAUTH_FLOW_COOKIE_HEADER } from './passkey-cookie';
import { authenticationCredentialSchema, requestOptionsSchema } from './passkey-schemas';
import { accessTokenSchema, ownerProofFields } from './schemas';
import { accessTokenResponse } from './sign-in';

export interface ReauthRouteDeps {
  tokens: TokenService;
  events: AuthEvents;
  proofs: OwnerProofs;
  gate: OwnerGate;
  /** PASSKEYS=true: a passkey proves it too (its options from POST /reauth/options). */
  passkeys: { login: PasskeyLogin; challengeTtlMs: number; cookie: { secure: boolean } } | undefined;
}

/** The challenge of a re-authentication is bound to the caller and to this purpose, never to a sign-in. */
const scopeOf = (user: UserRecord) => ({ user, tokenId: 'reauth' });
const PASSKEY_REFUSED = new HttpError(
  401,
  "The passkey's answer does not prove this account (expired, used, another browser or another account's passkey): ask for new options",
);

/**
 * Proving the owner again (RFC 9470's step-up; docs/authentication.md): POST /api/auth/reauth with what would sign
 * the account in — the password, the password and a code, or a passkey's answer to POST /api/auth/reauth/options —
 * answers a new access token of the same session, its `auth_time` now. A provider-only account signs in again
 * at its provider instead (GET /api/auth/oidc/{provider}/login?fresh=true).
 */
export function reauthRoutes(deps: ReauthRouteDeps): ModuleDefinition['routes'] {
  const { tokens, events, proofs, gate, passkeys } = deps;
  const answer = (
    ctx: Context,
    outcome: Exclude<OwnerCheck, { ok: true }> | { ok: true; user: UserRecord; proof: SessionProof },
  ) => {
    const userId = (ctx.state as RequestState).user!.id;
    if (!outcome.ok) {
      events.record(ctx, { action: 'reauth', outcome: 'refused', reason: outcome.refused, userId });
      throw refusalAnswer(outcome, proofs.maxAgeSeconds);
    }
    events.record(ctx, { action: 'reauth', outcome: 'success', userId, via: outcome.proof.amr.join('+') });
    const { user, proof } = outcome;
    return accessTokenResponse(tokens, { id: user.id, role: user.role, sessionVersion: user.sessionVersion, proof });
  };
  const body = Type.Object({
    ...ownerProofFields,
    ...(passkeys ? { credential: Type.Optional(authenticationCredentialSchema) } : {}),
  });
  const routes: ModuleDefinition['routes'] = [
    route({
      method: 'POST',
      path: '/reauth',
      access: 'authenticated',
      summary: "Prove the account's owner again: a new access token of the same session, its `auth_time` now",
      description:
        'With `{password}`, `{password, code}`, `{password, recoveryCode}`' +
        (passkeys
          ? ", or `{credential}` (a passkey's answer to POST /api/auth/reauth/options, with its `passkeyFlow` cookie)"
          : '') +
        ': what signing in asks of this account (a password alone is not enough with two-factor login on: 401 naming the proofs). ' +
        "A wrong password or code is counted by the login throttle. The refresh cookie is unchanged: a later refresh keeps the sign-in's `auth_time`.",
      body,
      responses: { 200: accessTokenSchema },
      errors: {
        401: 'The proof is wrong, not enough for this account (RFC 9470 challenge naming the proofs), or the session ended',
        429: {
          description: 'Too many wrong passwords or codes for this account',
          headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] },
        },
      },
      handler: async (ctx) => {
        const claims = ctx.state.session!;
        const { credential, ...inline } = ctx.request.body as typeof ctx.request.body & {
          credential?: Parameters<PasskeyLogin['verify']>[0];
        };
        if (!credential || !passkeys) return answer(ctx, await proofs.reauth(claims, inline, attemptOrigin(ctx)));
        const session = await proofs.session(claims);
        if (!session.ok) return answer(ctx, session);
        const verified = await passkeys.login.verify(credential, readBinding(ctx), scopeOf(session.user));
        if (!verified.ok || verified.user.id !== session.user.id) {
          events.record(ctx, {
            action: 'reauth',
            outcome: 'refused',
            reason: verified.ok ? 'other-account' : verified.refused,
            userId: session.user.id,
          });
          throw PASSKEY_REFUSED;
        }
        return answer(ctx, { ok: true, user: session.user, proof: verified.proof });
      },
    }),
  ];
  if (passkeys) {
    routes.push(
      route({
        method: 'POST',
        path: '/reauth/options',
        access: 'authenticated',
        summary:
          "Start proving the owner with a passkey: options for navigator.credentials.get() listing the caller's passkeys",
        description:
          'The challenge answers once, in this browser (the `passkeyFlow` cookie on /api/auth/reauth), for POST /api/auth/reauth `{credential}` only.',
        responses: { 200: requestOptionsSchema },
        responseHeaders: { 'Set-Cookie': REAUTH_FLOW_COOKIE_HEADER },
        errors: { 401: 'The session ended (on any replica)' },
        before: [gate.current],
        handler: async (ctx) => {
          const { binding, cookie } = ceremonyBinding(ctx, passkeys.cookie, passkeys.challengeTtlMs, REAUTH_FLOW);
          ctx.append('Set-Cookie', cookie);
          return passkeys.login.options(binding, scopeOf(currentUser(ctx)));
        },
      }),
    );
  }
  return routes;
}
