import type { Counting } from '../password-check';
import type { UserRecord, UserStore } from '../stores/user-store';
import type { ChallengeTokens } from './challenge-tokens';
import type { FactorAnswer, SecondFactor } from './second-factor';
import type { SpentChallenges } from './spent-challenges';

/** Why the second step was refused: the mfaToken (log in again), or the code. */
export type SecondStepRefusal = 'invalid-token' | 'session-ended' | 'spent-token' | 'wrong-code' | 'replayed-code' | 'not-enrolled';

export type SecondStepOutcome =
  | { ok: true; user: UserRecord; via: 'code' | 'recovery-code' }
  | { ok: false; refused: SecondStepRefusal; userId?: string }
  | { ok: false; refused: 'throttled'; retryAfterSeconds: number; userId: string };

/**
 * The second step of a login with two-factor login on (docs/accounts.md): the password step ends with an
 * mfaToken (`challenge`), and `verify` takes it with a code or a recovery code. The token is spent by its
 * first successful verify (SpentChallenges, in the database: on every replica), so it signs in once: a second
 * verify with it — the same code, the next one or a recovery code — is refused, and of two racing ones
 * exactly one succeeds. A token already spent is refused before any code is looked at (it uses up no
 * recovery code); one issued under an older session version (a password reset, logout everywhere) is refused.
 */
export class TwoFactorLogin {
  constructor(
    private readonly users: Pick<UserStore, 'findById'>,
    private readonly factors: SecondFactor,
    private readonly challenges: ChallengeTokens,
    private readonly spentChallenges: SpentChallenges,
    private readonly counting: Counting,
  ) {}

  /** After a right password: the mfaToken when this user's login asks for a second factor, else undefined. */
  async challenge(user: UserRecord): Promise<string | undefined> {
    return (await this.factors.enrolled(user.id)) ? this.challenges.sign({ userId: user.id, sessionVersion: user.sessionVersion }) : undefined;
  }

  /**
   * The user an unspent mfaToken is for, or undefined: a second step by another factor (a passkey, whose own
   * ceremony then proves it, PasskeyLogin) starts here.
   */
  async pendingUser(mfaToken: string): Promise<UserRecord | undefined> {
    const challenge = this.challenges.verify(mfaToken);
    if (!challenge) return undefined;
    const user = await this.users.findById(challenge.userId);
    if (!user || user.sessionVersion !== challenge.sessionVersion || (await this.spentChallenges.spent(challenge))) return undefined;
    return user;
  }

  async verify(mfaToken: string, answer: FactorAnswer): Promise<SecondStepOutcome> {
    const challenge = this.challenges.verify(mfaToken);
    if (!challenge) return { ok: false, refused: 'invalid-token' };
    const user = await this.users.findById(challenge.userId);
    if (!user || user.sessionVersion !== challenge.sessionVersion) return { ok: false, refused: 'session-ended', userId: challenge.userId };
    if (await this.spentChallenges.spent(challenge)) return { ok: false, refused: 'spent-token', userId: user.id };
    const check = await this.factors.check(user.id, answer, this.counting);
    if (!check.ok) return { ...check, userId: user.id };
    // The code was right; the token's one use decides between racing verifies (one insert on a unique key).
    if (!(await this.spentChallenges.spend(challenge))) return { ok: false, refused: 'spent-token', userId: user.id };
    return { ok: true, user, via: check.via };
  }
}
