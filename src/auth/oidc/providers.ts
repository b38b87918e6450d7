import type * as OpenIdClient from 'openid-client' with { 'resolution-mode': 'import' };
import type { OidcProviderSettings, OidcSettings } from '../../config/oidc-settings';
import type { Logger } from '../../logger';
import { ProviderDirectory, type DiscoveryFailure } from './provider-directory';
import { ProviderRefusal, type FlowSecrets, type ProviderIdentity } from './provider-types';

// The OpenID Connect relying party, through openid-client (OpenID Certified): discovery, the authorization
// URL with PKCE S256, state and nonce, and the code exchange with every ID token check (issuer, audience,
// nonce, expiry, signature by the provider's JWKS). This file is the only one that loads openid-client, and
// it is required only when OIDC_PROVIDERS is set (src/service.ts).

// openid-client is an ES module only; Node 24 require()s it (the service is CommonJS), and TypeScript reads
// its types as an import's.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const client = require('openid-client') as typeof OpenIdClient;

const HTTP_TIMEOUT_SECONDS = 10;
const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The address a provider vouches for, if it fits a users row (254 characters, an @): else none. */
function addressOf(claims: Record<string, unknown>): Pick<ProviderIdentity, 'email' | 'emailVerified'> {
  const email = str(claims.email);
  if (!email || email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email))
    return { email: undefined, emailVerified: false };
  return { email, emailVerified: claims.email_verified === true };
}

/**
 * The provider's error code for an OAuth error answer; otherwise the innermost cause's words: openid-client's
 * "something went wrong" and fetch's "fetch failed" wrap what happened ("connect ECONNREFUSED 10.0.0.5:443").
 */
function describe(error: unknown): string {
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError)
    return error.error;
  // By shape, not instanceof: fetch's errors come from Node's own realm, which a test runner's is not.
  const errorLike = (value: unknown): value is { message: string; cause?: unknown } =>
    typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
  let innermost = error;
  while (errorLike(innermost) && errorLike(innermost.cause)) innermost = innermost.cause;
  return errorLike(innermost) ? innermost.message : String(innermost);
}

/** Failed to reach the provider at all (refused, reset, timed out), as opposed to an answer it gave. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
function unreachable(error: unknown): boolean {
  for (
    let cause: unknown = error;
    cause instanceof Error || (typeof cause === 'object' && cause !== null);
    cause = (cause as Error).cause
  ) {
    const { name, message, code } = cause as { name?: string; message?: string; code?: string };
    if (
      name === 'TimeoutError' ||
      name === 'AbortError' ||
      message === 'fetch failed' ||
      (code !== undefined && NETWORK_CODES.has(code))
    )
      return true;
  }
  return false;
}

export class OidcProvider {
  private constructor(
    readonly settings: OidcProviderSettings,
    private readonly configuration: OpenIdClient.Configuration,
    readonly redirectUri: string,
  ) {}

  get name(): string {
    return this.settings.name;
  }

  /** The issuer as the provider's metadata states it: the `iss` of its ID tokens, and the key of linked identities. */
  get issuer(): string {
    return this.configuration.serverMetadata().issuer;
  }

  static async discover(settings: OidcProviderSettings, publicUrl: string): Promise<OidcProvider> {
    const loopbackHttp = settings.issuer.protocol === 'http:'; // the settings allow it only to localhost outside production
    const configuration = await client.discovery(
      settings.issuer,
      settings.clientId,
      { client_secret: settings.clientSecret },
      client.ClientSecretBasic(settings.clientSecret),
      {
        timeout: HTTP_TIMEOUT_SECONDS,
        ...(loopbackHttp ? { execute: [client.allowInsecureRequests] } : {}),
      },
    );
    return new OidcProvider(settings, configuration, `${publicUrl}/api/auth/oidc/${settings.name}/callback`);
  }

  /** New secrets for one sign-in: a PKCE verifier, state and nonce (each 32 random bytes). */
  newFlow(): FlowSecrets {
    return { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
  }

  /**
   * Where the browser goes to sign in: code flow, PKCE S256, state and nonce; `fresh` asks the provider to
   * authenticate the end-user now whatever session it holds (`max_age=0`, `prompt=login`: OpenID Connect Core §3.1.2.1).
   */
  async authorizationUrl(flow: FlowSecrets, fresh = false): Promise<string> {
    return client
      .buildAuthorizationUrl(this.configuration, {
        ...(fresh ? { max_age: '0', prompt: 'login' } : {}),
        redirect_uri: this.redirectUri,
        response_type: 'code',
        scope: this.settings.scopes,
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
      })
      .toString();
  }

  /**
   * The callback's query checked against this browser's flow (state), the code exchanged with the
   * verifier, the ID token validated (nonce included); the address from the ID token or, when it carries
   * none, from the UserInfo endpoint (whose `sub` must match).
   */
  async identify(callbackQuery: URLSearchParams, flow: FlowSecrets): Promise<ProviderIdentity> {
    const callbackUrl = new URL(this.redirectUri);
    callbackUrl.search = callbackQuery.toString();
    try {
      const tokens = await client.authorizationCodeGrant(this.configuration, callbackUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!; // idTokenExpected: openid-client refuses an answer without one
      let source: Record<string, unknown> = claims;
      if (str(claims.email) === undefined)
        source = await client.fetchUserInfo(this.configuration, tokens.access_token, claims.sub);
      // OpenID Connect Core §2: a `sub` is at most 255 ASCII characters (the linked-identity key holds that much).
      if (claims.sub.length > 255 || !/^[\x21-\x7e]+$/.test(claims.sub))
        throw new ProviderRefusal('exchange', 'the subject identifier is not 1-255 visible ASCII characters');
      const authTime =
        typeof claims.auth_time === 'number' && Number.isSafeInteger(claims.auth_time) ? claims.auth_time : undefined;
      return {
        issuer: claims.iss,
        subject: claims.sub,
        ...addressOf(source),
        name: str(source.name)?.trim().slice(0, 100) || undefined,
        authTime,
      };
    } catch (error) {
      if (error instanceof ProviderRefusal) throw error;
      if (error instanceof client.AuthorizationResponseError)
        throw new ProviderRefusal('denied', describe(error), { cause: error });
      throw new ProviderRefusal(unreachable(error) ? 'unreachable' : 'exchange', describe(error), { cause: error });
    }
  }
}

/** A failed discovery: an outage (unreachable, timed out, a 5xx answer) is retried; any other answer is a configuration mistake. */
function classify(error: unknown): DiscoveryFailure {
  let serverError = false;
  for (let cause: unknown = error; typeof cause === 'object' && cause !== null; cause = (cause as Error).cause) {
    const status = (cause as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 500) serverError = true;
  }
  return { outage: serverError || unreachable(error), reason: describe(error) };
}

/**
 * Discovers the configured providers at start-up, all at once, once each: those that answered are served, the
 * unreachable ones are discovered in the background (ProviderDirectory), and one that answers something other
 * than its discovery document (a wrong issuer URL) stops start-up naming its OIDC_<NAME>_ISSUER.
 */
export function discoverProviders(
  settings: OidcSettings,
  logger: Logger,
  retry: { firstRetryMs?: number; maxRetryMs?: number } = {},
): Promise<ProviderDirectory<OidcProvider>> {
  const discover = (provider: OidcProviderSettings) => OidcProvider.discover(provider, settings.publicUrl);
  return new ProviderDirectory(settings.providers, { discover, classify, logger, ...retry }).start();
}
