import { AMR, completedBy, type SessionProof } from '../owner-proof/proofs';
import type { Counting } from '../password-check';
import type { UserRecord, UserStore } from '../stores/user-store';
import type { ChallengeTokens } from './challenge-tokens';
import type { FactorAnswer, SecondFactor } from './second-factor';
import type { SpentChallenges } from './spent-challenges';

/** Why the second step was refused: the mfaToken (log in again), or the code. */
export type SecondStepRefusal = MfaTokenRefusal | 'wrong-code' | 'replayed-code' | 'not-enrolled';
/** The refusals that are about the mfaToken itself (invalid, from an ended session, used already), whatever the factor. */
export type MfaTokenRefusal = 'invalid-token' | 'session-ended' | 'spent-token';

export type SecondStepOutcome =
  | { ok: true; user: UserRecord; via: 'code' | 'recovery-code'; proof: SessionProof }
  | { ok: false; refused: SecondStepRefusal; userId?: string }
  | { ok: false; refused: 'throttled'; retryAfterSeconds: number; userId: string };

/** A login waiting for its second factor: the user, the id of the mfaToken that spends it, the first step's proof. */
export interface PendingSecondStep {
  user: UserRecord;
  tokenId: string;
  firstFactor: SessionProof;
}

/**
 * The second step of a login with two-factor login on (docs/accounts.md): the password step ends with an
 * mfaToken (`challenge`), and `verify` takes it with a code or a recovery code. The token is spent first
 * (SpentChallenges, one insert in the database: on every replica), before the code is looked at or counted,
 * and given back when the code is wrong: so it signs in once, and of verifies racing with it — a
 * double-submitted form, the same code twice, a recovery code beside it — exactly one goes on; the others are
 * answered "used" and use up nothing (no recovery code, no count against the throttle). One issued under an
 * older session version (a password reset, logout everywhere) is refused.
 */
export class TwoFactorLogin {
  constructor(
    private readonly users: Pick<UserStore, 'findById'>,
    private readonly factors: SecondFactor,
    private readonly challenges: ChallengeTokens,
    private readonly spentChallenges: SpentChallenges,
    private readonly counting: Counting,
  ) {}

  /** After a first factor (`firstFactor`): the mfaToken when this user's login asks for a second one, else undefined. */
  async challenge(user: UserRecord, firstFactor: SessionProof): Promise<string | undefined> {
    if (!(await this.factors.enrolled(user.id))) return undefined;
    return this.challenges.sign({ userId: user.id, sessionVersion: user.sessionVersion, firstFactor });
  }

  /**
   * The user an unspent mfaToken is for, and the token's id, or undefined: a second step by another factor (a
   * passkey, whose own ceremony then proves it, PasskeyLogin) starts here and ends in `verifyBy`.
   */
  async pendingUser(mfaToken: string): Promise<PendingSecondStep | undefined> {
    const challenge = this.challenges.verify(mfaToken);
    if (!challenge) return undefined;
    const user = await this.users.findById(challenge.userId);
    if (!user || user.sessionVersion !== challenge.sessionVersion || (await this.spentChallenges.spent(challenge)))
      return undefined;
    return { user, tokenId: challenge.id, firstFactor: challenge.firstFactor };
  }

  /**
   * The second step by another factor: as `verify`, the token is spent first and given back when `prove`
   * fails or throws, so it signs in once whichever factor answers it and a racing code or passkey finds it used.
   */
  async verifyBy<Outcome extends { ok: boolean }>(
    mfaToken: string,
    prove: (pending: PendingSecondStep) => Promise<Outcome>,
  ): Promise<Outcome | { ok: false; refused: MfaTokenRefusal; userId?: string }> {
    const challenge = this.challenges.verify(mfaToken);
    if (!challenge) return { ok: false, refused: 'invalid-token' };
    const user = await this.users.findById(challenge.userId);
    if (!user || user.sessionVersion !== challenge.sessionVersion)
      return { ok: false, refused: 'session-ended', userId: challenge.userId };
    if (!(await this.spentChallenges.spend(challenge))) return { ok: false, refused: 'spent-token', userId: user.id };
    let outcome: Outcome;
    try {
      outcome = await prove({ user, tokenId: challenge.id, firstFactor: challenge.firstFactor });
    } catch (error) {
      await this.spentChallenges.giveBack(challenge).catch(() => undefined); // an outage is no use of the token
      throw error;
    }
    if (!outcome.ok) await this.spentChallenges.giveBack(challenge);
    return outcome;
  }

  async verify(mfaToken: string, answer: FactorAnswer): Promise<SecondStepOutcome> {
    return this.verifyBy(mfaToken, async ({ user, firstFactor }): Promise<SecondStepOutcome> => {
      const check = await this.factors.check(user.id, answer, this.counting);
      return check.ok
        ? { ok: true, user, via: check.via, proof: completedBy(firstFactor, AMR.oneTimeCode) }
        : { ...check, userId: user.id };
    });
  }
}
