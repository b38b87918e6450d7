import { hkdfSync } from 'node:crypto';
import { SecretBox } from '../mfa/secret-box';
import type { FlowSecrets } from './provider-types';

// The browser's side of one sign-in at a provider: state, nonce and PKCE verifier, the provider it went
// to, where to return, and until when. Sealed (AES-256-GCM, a key derived from REFRESH_TOKEN_SECRET) so the
// browser can neither read the verifier nor change any of it, and bound to the browser by living only in
// its cookie: a callback arriving in another browser has no such cookie and is refused.

export interface SignInFlow extends FlowSecrets {
  provider: string;
  returnTo: string;
  /** A link flow (started from a signed-in session): the user the identity is for, under their session version then. */
  link?: { userId: string; sessionVersion: number };
  /** The sign-in must be a fresh authentication at the provider (a proof of the owner): its `auth_time` no older than `startedAt`. */
  fresh?: true;
  /** When the browser was sent to the provider (seconds). */
  startedAt: number;
}

/** Ten minutes: time to sign in at the provider (and consent), short enough that a lost cookie dies soon. */
export const FLOW_TTL_SECONDS = 600;
const PURPOSE = 'oidc-sign-in-flow';

export class FlowSeal {
  private readonly box: SecretBox;

  constructor(secret: string) {
    this.box = new SecretBox([
      Buffer.from(hkdfSync('sha256', secret, '', 'oidc-flow-cookie/v1', 32)).toString('base64'),
    ]);
  }

  seal(flow: SignInFlow, now = Date.now()): string {
    const payload = { ...flow, expiresAt: Math.floor(now / 1000) + FLOW_TTL_SECONDS };
    return this.box.seal(JSON.stringify(payload), PURPOSE);
  }

  /** The flow, or undefined when the value was not sealed here, is malformed, or has expired. */
  open(sealed: string | undefined, now = Date.now()): SignInFlow | undefined {
    if (!sealed) return undefined;
    let payload: Partial<SignInFlow & { expiresAt: number }>;
    try {
      payload = JSON.parse(this.box.open(sealed, PURPOSE)) as typeof payload;
    } catch {
      return undefined;
    }
    const { provider, returnTo, state, nonce, codeVerifier, expiresAt, link, fresh, startedAt } = payload;
    if (typeof expiresAt !== 'number' || expiresAt * 1000 <= now || typeof startedAt !== 'number') return undefined;
    if (![provider, returnTo, state, nonce, codeVerifier].every((part) => typeof part === 'string')) return undefined;
    const flow = {
      provider: provider!,
      returnTo: returnTo!,
      state: state!,
      nonce: nonce!,
      codeVerifier: codeVerifier!,
      startedAt,
      ...(fresh === true ? { fresh } : {}),
    };
    if (link === undefined) return flow;
    return typeof link.userId === 'string' && Number.isSafeInteger(link.sessionVersion)
      ? { ...flow, link: { userId: link.userId, sessionVersion: link.sessionVersion } }
      : undefined;
  }
}
