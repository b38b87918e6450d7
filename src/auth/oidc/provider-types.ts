// What the routes know of a provider's answers, apart from openid-client (./providers.ts), which loads only
// when OIDC_PROVIDERS is set: the route and account code imports these without loading it.

/** What one sign-in at the provider proved: who the end-user is there, and what it says of their address. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  /** True only when the provider says `email_verified: true` for that address. */
  emailVerified: boolean;
  name: string | undefined;
  /** When the end-user last authenticated at the provider (the ID token's `auth_time`, seconds), when it says. */
  authTime?: number;
}

/** The secrets of one sign-in attempt, kept in the browser's flow cookie until the callback. */
export interface FlowSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** What the browser is told of each kind of refusal: fixed words; what happened goes to the log (`detail`). */
const REFUSAL_TEXT = {
  denied: 'The provider did not complete the sign-in (it was declined or refused): start again',
  exchange: 'The sign-in could not be completed: start again',
  unreachable: 'The provider could not be reached: try again later',
} as const;

/** Why the provider or the exchange refused a callback (each answers in the envelope, setting no session). */
export class ProviderRefusal extends Error {
  constructor(
    /** 'denied': the provider sent an error (the user declined, …); 'exchange': the code or the ID token failed; 'unreachable'. */
    readonly kind: keyof typeof REFUSAL_TEXT,
    /** What happened, for the log only: the provider's error code or the library's words. */
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(REFUSAL_TEXT[kind], options);
    this.name = 'ProviderRefusal';
  }
}

/** Start-up could not discover a provider: the message names the variable (never a secret). */
export class OidcDiscoveryError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OidcDiscoveryError';
  }
}
