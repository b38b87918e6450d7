import { DuplicateKeyError } from '../../stores/errors';
import type { AccountTokenStore } from '../stores/account-token-store';
import type { VerifiedChallenge } from './challenge-tokens';

/** What spending a challenge needs of it: its id, its user, when it expires. */
type SpendableChallenge = Pick<VerifiedChallenge, 'id' | 'userId' | 'expiresAt'>;
import { digestOf } from '../account-links';

const PURPOSE = 'spent-mfa-challenge';

/**
 * The mfaTokens already spent: the first successful POST /mfa/verify records its token's id (`jti`) in the
 * database with the token's expiry, and no replica accepts that token again. Recording is one insert on the
 * table's key (the SHA-256 of the id), so of two verifies racing with one token exactly one records it
 * (the loser gets DuplicateKeyError) — on the relational engines and on MongoDB (`_id`) alike. Expired
 * records go with the clean-up job / TTL index: by then the token itself no longer verifies.
 */
export class SpentChallenges {
  constructor(private readonly tokens: AccountTokenStore) {}

  /** True when a second step succeeded with this token already (a passkey's second step checks it before its ceremony). */
  async spent(challenge: SpendableChallenge): Promise<boolean> {
    return (await this.tokens.find(challengeDigest(challenge), PURPOSE)) !== null;
  }

  /** The token back, unspent: its verify failed on the code (a typo does not cost the user their login). */
  async giveBack(challenge: SpendableChallenge): Promise<void> {
    await this.tokens.consume(challengeDigest(challenge), PURPOSE);
  }

  /** Spends the token: true for the first caller, false for every later or racing one. */
  async spend(challenge: SpendableChallenge): Promise<boolean> {
    try {
      await this.tokens.create({
        digest: challengeDigest(challenge),
        userId: challenge.userId,
        purpose: PURPOSE,
        expiresAt: challenge.expiresAt,
      });
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }
}

const challengeDigest = (challenge: SpendableChallenge) => digestOf(`mfa-challenge:${challenge.id}`);
