import { randomBytes } from 'node:crypto';
import { digestOf } from '../account-links';
import type { AccountTokenStore } from '../stores/account-token-store';

/** Which ceremony a challenge was issued for: one never answers the other. */
export type Ceremony = 'passkey-registration' | 'passkey-login' | 'passkey-signup';

/** Nobody in particular: a usernameless sign-in's challenge belongs to no user until it is answered. */
const ANYONE = '';

/**
 * The challenges of the WebAuthn ceremonies, kept server-side in `account_tokens` (as the spent mfaTokens
 * are): the digest of (ceremony, binding, challenge) is the row's key, with the user it was issued to and a
 * short expiry (WEBAUTHN_CHALLENGE_TTL). The binding is a random value the browser that asked holds in an
 * httpOnly cookie: an answer from another browser finds no row. A challenge is used up by one delete
 * (AccountTokenStore.consume), before the answer's signature is even checked: of N verifies racing with one
 * answer, on any replica, one goes on. Expired rows go with the clean-up job / TTL index.
 */
export class PasskeyChallenges {
  constructor(
    private readonly tokens: AccountTokenStore,
    private readonly ttlMs: number,
  ) {}

  /** A new binding for a browser that has none (the flow cookie's value). */
  static newBinding(): string {
    return randomBytes(32).toString('base64url');
  }

  /** Records a challenge issued to this binding (and user, for a registration, a second factor, or the account a sign-up will make). */
  async issue(ceremony: Ceremony, challenge: string, binding: string, userId?: string): Promise<void> {
    await this.tokens.create({
      digest: keyOf(ceremony, challenge, binding),
      userId: userId ?? ANYONE,
      purpose: ceremony,
      expiresAt: new Date(Date.now() + this.ttlMs),
    });
  }

  /**
   * Uses the challenge up: `{ userId }` it was issued to (undefined for anyone) when it was issued to this
   * binding, unexpired and unused; null otherwise (unknown, another browser's, expired, used, or lost a race).
   */
  async consume(
    ceremony: Ceremony,
    challenge: string,
    binding: string,
  ): Promise<{ userId: string | undefined } | null> {
    const userId = await this.tokens.consume(keyOf(ceremony, challenge, binding), ceremony);
    return userId === null ? null : { userId: userId === ANYONE ? undefined : userId };
  }
}

const keyOf = (ceremony: Ceremony, challenge: string, binding: string) =>
  digestOf(`${ceremony}:${binding}:${challenge}`);
