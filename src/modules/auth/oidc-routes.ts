import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { TwoFactorLogin } from '../../auth/mfa/two-factor-login';
import type { FlowSeal } from '../../auth/oidc/flow-cookie';
import type { AccountRefusal, OidcAccounts, Resolution } from '../../auth/oidc/oidc-accounts';
import { ProviderRefusal } from '../../auth/oidc/provider-types';
import type { ProviderDirectory } from '../../auth/oidc/provider-directory';
import type { OidcProvider } from '../../auth/oidc/providers';
import { safeReturnTo } from '../../auth/oidc/return-to';
import type { UserRecord, UserStore } from '../../auth/stores/user-store';
import { conflict, HttpError, notFound } from '../../http/errors';
import { route, type ModuleDefinition } from '../../http/routing/route';
import type { OidcRefusal } from '../../observability/metrics';
import type { AuthEvents } from './auth-events';
import type { AccountSessions } from '../../auth/account-sessions';
import { AMR, nowSeconds, without, type SessionProof } from '../../auth/owner-proof/proofs';
import type { ProviderIdentity } from '../../auth/oidc/provider-types';
import { CLOCK_SKEW_SECONDS } from '../../auth/tokens';
import { readDeviceCookie, refreshCookie } from './cookie';
import { clearedFlowCookie, flowCookie, readFlowCookie } from './oidc-cookie';
import { provenOwner, type OwnerGate } from './owner-gate';
import { ownerProofFields } from './schemas';
import { NEW_SESSION_COOKIE_HEADER, REFRESH_COOKIE_HEADER, signIn, type SignInDeps } from './sign-in';

export interface OidcRouteDeps extends SignInDeps {
  /** The configured providers (OIDC_PROVIDERS) and which are discovered. */
  providers: Pick<ProviderDirectory<OidcProvider>, 'get' | 'discovered'>;
  accounts: OidcAccounts;
  seal: FlowSeal;
  /** PUBLIC_URL: every redirect after a sign-in goes to a path on it. */
  publicUrl: string;
  users: UserStore;
  events: AuthEvents;
  /** MFA_ENCRYPTION_KEY set: a user with two-factor login on still gives a code. */
  twoFactor: TwoFactorLogin | undefined;
  /** The proof of the owner every change to the ways in asks for (linking and unlinking a provider among them). */
  gate: OwnerGate;
  /** Unlinking a provider ends the account's other sessions. */
  sessionsOf: AccountSessions;
}

/**
 * What a sign-in at the provider proves, and when: the ID token's `auth_time` (never later than now), or
 * nothing recent when the provider does not say (a session it held for days would pass for a fresh sign-in).
 */
const providerProof = (identity: ProviderIdentity): SessionProof => ({
  authTime: Math.min(identity.authTime ?? 0, nowSeconds()),
  amr: [AMR.provider],
});

const providerParams = Type.Object({
  provider: Type.String({ pattern: '^[a-z][a-z0-9]{0,31}$', description: 'A name in OIDC_PROVIDERS' }),
});
const LOCATION = (what: string) => ({ description: what, schema: { type: 'string', format: 'uri' } });
const FLOW_COOKIE_HEADER = {
  description:
    'The sealed sign-in flow: `oidcFlow=<sealed>; Path=/api/auth/oidc; Max-Age=600; HttpOnly; SameSite=Lax` (+ `Secure`)',
  schema: { type: 'string', pattern: '^oidcFlow=' },
};

/** How an account that holds the address links a provider: with its own credential first. */
const ACCOUNT_EXISTS =
  'An account uses this address: sign in to it the way it signs in (its password, or a provider already linked), then link this provider from that session ' +
  '(POST /api/auth/oidc/{provider}/link)';

/** Each refusal of the account rules, as the browser is told it. */
const ACCOUNT_REFUSALS: Record<AccountRefusal, HttpError> = {
  'unverified-email': new HttpError(
    403,
    'The provider has not verified an email address for this identity: it cannot sign in to or create an account here',
  ),
  'account-unverified': new HttpError(
    409,
    'An account uses this address but has not verified it: verify the address (or reset the password) first, then sign in with the provider',
  ),
  'registration-closed': new HttpError(
    403,
    'No account uses this address, and accounts are not created through this provider',
  ),
  'account-exists': new HttpError(409, ACCOUNT_EXISTS),
};
const REFUSAL_KIND: Record<ProviderRefusal['kind'], OidcRefusal> = {
  denied: 'denied',
  exchange: 'exchange-failed',
  unreachable: 'unreachable',
};

/**
 * Sign-in with OpenID Connect providers (OIDC_PROVIDERS, docs/authentication.md): the login redirect, the
 * callback that lands in the same refresh-cookie session as a password login (or in the second factor),
 * the list of providers, and unlinking one.
 */
export function oidcRoutes(deps: OidcRouteDeps): ModuleDefinition['routes'] {
  const { providers, accounts, seal, events, cookie } = deps;
  const clearFlow = clearedFlowCookie(cookie);
  const providerOf = (name: string) => {
    const provider = providers.get(name);
    if (!provider) throw notFound('No such sign-in provider');
    // Configured but not discovered yet (unreachable at start-up, still tried in the background): its outage is its own.
    if (provider === 'pending')
      throw new HttpError(503, 'This sign-in provider cannot be reached at the moment: try again later', {
        headers: { 'Retry-After': '30' },
      });
    return provider;
  };
  /** A refused callback: the envelope, the flow cookie cleared, no session; logged and counted. */
  const refuse = (ctx: Context, provider: string, reason: OidcRefusal, error: HttpError, detail?: string) => {
    events.record(ctx, { action: 'oidc-login', outcome: 'refused', reason, provider, detail });
    return new HttpError(error.status, error.message, { headers: { 'Set-Cookie': clearFlow } });
  };
  const landing = (returnTo: string) => `${deps.publicUrl}${returnTo}`;

  /** The end of a callback for a known user: the second factor next, or a session exactly as a password login makes it. */
  const finish = async (
    ctx: Context,
    provider: string,
    user: UserRecord,
    linked: Resolution,
    returnTo: string,
    proof: SessionProof,
  ) => {
    ctx.append('Set-Cookie', clearFlow);
    // The provider was the first factor; for a user with two-factor login on, the code comes next, at
    // POST /api/auth/mfa/verify with this token. In the fragment: browsers never send it to a server, so it reaches no log.
    const mfaToken = await deps.twoFactor?.challenge(user, proof);
    if (mfaToken) {
      events.record(ctx, { action: 'oidc-login', outcome: 'mfa-required', userId: user.id, provider, linked });
      return ctx.redirect(`${landing(returnTo)}#mfaToken=${encodeURIComponent(mfaToken)}`);
    }
    await signIn(ctx, deps, user, deps.throttle.knowsDevice(user, readDeviceCookie(ctx)), proof);
    events.record(ctx, { action: 'oidc-login', outcome: 'success', userId: user.id, provider, linked });
    ctx.redirect(landing(returnTo));
  };

  return [
    route({
      method: 'GET',
      path: '/oidc',
      access: 'public',
      summary: 'The OpenID Connect providers one can sign in with now (discovered), and where each sign-in starts',
      responses: {
        200: Type.Array(
          Type.Object({
            name: Type.String(),
            loginUrl: Type.String({ description: 'Navigate the browser here (add ?returnTo=/path)' }),
          }),
        ),
      },
      handler: () =>
        providers.discovered().map(({ name }) => ({ name, loginUrl: `${deps.publicUrl}/api/auth/oidc/${name}/login` })),
    }),
    route({
      method: 'GET',
      path: '/oidc/:provider/login',
      access: 'public',
      summary: "Sign in with a provider: redirects the browser to the provider's authorization endpoint",
      description:
        'Authorization code flow with PKCE (S256), `state` and `nonce`, bound to this browser by a sealed, short-lived httpOnly cookie. ' +
        'After the provider, the callback redirects to PUBLIC_URL + `returnTo` (a path on that origin; anything else becomes `/`). With `fresh=true` the ' +
        "provider is asked to authenticate the end-user now (`max_age=0`, `prompt=login`) and the ID token's `auth_time` must say it did: the session is " +
        'then a recent proof of the owner, as POST /api/auth/reauth gives one (the way an account that signs in only through providers proves it).',
      params: providerParams,
      query: Type.Object({
        returnTo: Type.Optional(
          Type.String({
            maxLength: 4000,
            description: 'A path on PUBLIC_URL, such as /account',
            examples: ['/account'],
          }),
        ),
        fresh: Type.Optional(
          Type.Boolean({ description: 'Ask for a fresh authentication at the provider (a proof of the owner)' }),
        ),
      }),
      responses: { 302: null },
      responseHeaders: {
        Location: LOCATION("The provider's authorization endpoint"),
        'Set-Cookie': FLOW_COOKIE_HEADER,
      },
      errors: {
        404: 'No such provider',
        503: {
          description: 'The provider has not been discovered yet (unreachable): try again later',
          headers: { 'Retry-After': { description: 'Seconds', schema: { type: 'integer' } } },
        },
      },
      handler: async (ctx) => {
        const provider = providerOf(ctx.params.provider);
        const flow = provider.newFlow();
        const fresh = ctx.query.fresh === true;
        const location = await provider.authorizationUrl(flow, fresh);
        const started = {
          provider: provider.name,
          returnTo: safeReturnTo(ctx.query.returnTo),
          startedAt: nowSeconds(),
          ...(fresh ? { fresh } : {}),
        };
        ctx.append('Set-Cookie', flowCookie(seal.seal({ ...flow, ...started }), cookie));
        ctx.redirect(location);
      },
    }),
    route({
      method: 'GET',
      path: '/oidc/:provider/callback',
      access: 'public', // the flow cookie and the provider's code are the credentials
      summary: 'Where the provider sends the browser back: signs in and redirects to PUBLIC_URL + returnTo',
      description:
        'Checks `state` against the flow cookie, exchanges the code with the PKCE verifier, validates the ID token (issuer, audience, nonce, expiry, signature), ' +
        'finds the linked account (or links one by an address the provider verified, or creates one when the provider allows registration), then sets the ' +
        'refresh cookie as POST /api/auth/login does; the client then calls POST /api/auth/refresh. For a user with two-factor login, no session yet: the ' +
        'redirect carries `#mfaToken=<token>` for POST /api/auth/mfa/verify. Every refusal answers in the envelope and sets no session.',
      params: providerParams,
      responses: { 302: null },
      responseHeaders: {
        Location: LOCATION('PUBLIC_URL + returnTo (+ `#mfaToken=…` when a second factor is due)'),
        'Set-Cookie': REFRESH_COOKIE_HEADER,
      },
      errors: {
        400: 'No sign-in in progress in this browser (no, expired or forged flow cookie), or the `state` does not match it',
        403: 'The provider has not verified the address, or no account uses it and this provider does not create accounts',
        404: 'No such provider',
        401: 'The provider refused the sign-in, the code or the ID token failed, or (a link flow) the session that asked for the link has ended',
        409: 'An account uses the address: it has not verified it, or it links this provider from its own signed-in session (POST …/link); or (a link flow) the identity signs in to another account',
        502: 'The provider could not be reached',
        503: 'The provider has not been discovered yet (unreachable since start-up)',
      },
      handler: async (ctx) => {
        const provider = providerOf(ctx.params.provider);
        const flow = seal.open(readFlowCookie(ctx));
        const query = new URLSearchParams(ctx.querystring);
        if (!flow || flow.provider !== provider.name || query.get('state') !== flow.state) {
          throw refuse(
            ctx,
            provider.name,
            'bad-state',
            new HttpError(400, 'This sign-in was not started in this browser, or it expired: start again'),
          );
        }
        let identity;
        try {
          identity = await provider.identify(query, flow);
        } catch (error) {
          if (!(error instanceof ProviderRefusal)) throw error;
          throw refuse(
            ctx,
            provider.name,
            REFUSAL_KIND[error.kind],
            new HttpError(error.kind === 'unreachable' ? 502 : 401, error.message),
            error.detail,
          );
        }
        // A fresh sign-in was asked for: the provider must say the end-user authenticated after the browser left here.
        if (
          flow.fresh &&
          (identity.authTime === undefined || identity.authTime < flow.startedAt - CLOCK_SKEW_SECONDS)
        ) {
          throw refuse(
            ctx,
            provider.name,
            'stale-sign-in',
            new HttpError(401, 'The provider did not ask you to sign in again (no recent auth_time): start again'),
          );
        }
        if (flow.link) {
          const linking = await deps.users.findById(flow.link.userId);
          if (!linking || linking.sessionVersion !== flow.link.sessionVersion)
            throw refuse(
              ctx,
              provider.name,
              'link-session-ended',
              new HttpError(401, 'The session that asked for this link has ended: sign in and start again'),
            );
          if ((await accounts.linkTo(linking, provider.name, identity)) === 'taken')
            throw refuse(
              ctx,
              provider.name,
              'link-taken',
              new HttpError(409, 'This identity at the provider signs in to another account'),
            );
          events.record(ctx, { action: 'oidc-link', outcome: 'success', userId: linking.id, provider: provider.name });
          ctx.append('Set-Cookie', clearFlow);
          return ctx.redirect(landing(flow.returnTo));
        }
        const found = await accounts.resolve(provider.settings, identity);
        if (!found.ok) throw refuse(ctx, provider.name, found.refused, ACCOUNT_REFUSALS[found.refused]);
        await finish(ctx, provider.name, found.user, found.how, flow.returnTo, providerProof(identity));
      },
    }),
    route({
      method: 'POST',
      path: '/oidc/:provider/link',
      access: 'authenticated',
      summary: "Start linking a provider to the caller's account: answers where the browser signs in at the provider",
      description:
        'The authenticated link flow, a change to the ways in: the password (and a code, with two-factor login on) in the body where that signs the ' +
        'account in, else a recent proof (POST /api/auth/reauth). The answer sets the flow cookie and gives the authorization URL; the browser goes ' +
        'there, and the callback links the identity to this account (the owner is mailed) and redirects to PUBLIC_URL + `returnTo`. An address alone ' +
        'never links an account with a role other than `user`, a second factor or a passkey: this is how they link.',
      params: providerParams,
      body: Type.Object({
        ...ownerProofFields,
        returnTo: Type.Optional(
          Type.String({ maxLength: 4000, description: 'A path on PUBLIC_URL', examples: ['/account'] }),
        ),
      }),
      responses: {
        200: Type.Object({
          authorizationUrl: Type.String({
            description: "Navigate the browser here: the provider's authorization endpoint",
          }),
        }),
      },
      responseHeaders: { 'Set-Cookie': FLOW_COOKIE_HEADER },
      errors: { ...deps.gate.errors, 404: 'No such provider' },
      before: [deps.gate.proven((body: { password?: string; code?: string; recoveryCode?: string }) => body)],
      handler: async (ctx) => {
        const provider = providerOf(ctx.params.provider);
        const { user } = provenOwner(ctx);
        const flow = provider.newFlow();
        const link = { userId: user.id, sessionVersion: user.sessionVersion };
        const started = {
          provider: provider.name,
          returnTo: safeReturnTo(ctx.request.body.returnTo),
          link,
          startedAt: nowSeconds(),
        };
        ctx.append('Set-Cookie', flowCookie(seal.seal({ ...flow, ...started }), cookie));
        return { authorizationUrl: await provider.authorizationUrl(flow) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/oidc/:provider/link',
      access: 'authenticated',
      summary:
        "Unlink the caller's identity at a provider (it no longer signs in to this account), with a recent proof of the owner: every other session ends",
      description:
        'A change to the ways in (POST /api/auth/reauth first when the proof is not recent). Every other session of the account ends; the caller goes on ' +
        'with a new refresh cookie: POST /api/auth/refresh gives the next access token.',
      params: providerParams,
      responses: { 204: null },
      responseHeaders: { 'Set-Cookie': NEW_SESSION_COOKIE_HEADER },
      errors: {
        ...deps.gate.errors,
        404: 'No such provider, or no identity of the caller there',
        409: 'It is the last way to sign in (no password, no other provider, no passkey): set a password first; or (MongoDB) other changes of the account’s ways in kept racing it: try again',
      },
      before: [deps.gate.proven()],
      handler: async (ctx) => {
        const provider = providerOf(ctx.params.provider);
        const { user, proof } = provenOwner(ctx);
        const outcome = await accounts.unlink(user, provider.issuer);
        if (outcome === 'not-linked') throw notFound('No identity at this provider is linked to the account');
        if (outcome === 'busy')
          throw conflict("The account's ways to sign in were being changed at the same time: try again");
        if (outcome === 'last-way') {
          events.record(ctx, { action: 'oidc-unlink', outcome: 'refused', userId: user.id, provider: provider.name });
          throw conflict(
            'This is the last way to sign in to the account: set a password (reset it by email) or link another provider first',
          );
        }
        const session = await deps.sessionsOf.restart(user, without(proof, AMR.provider));
        if (session) ctx.append('Set-Cookie', refreshCookie(session.token, cookie));
        events.record(ctx, { action: 'oidc-unlink', outcome: 'success', userId: user.id, provider: provider.name });
        return undefined; // 204
      },
    }),
  ];
}
