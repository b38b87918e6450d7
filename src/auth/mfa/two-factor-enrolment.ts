import type { Logger } from '../../logger';
import type { AccountNotice, AccountNotices } from '../account-notices';
import type { AccountSessions } from '../account-sessions';
import { AMR, completedBy, type SessionProof } from '../owner-proof/proofs';
import type { UserRecord } from '../stores/user-store';
import type { IssuedRefreshToken } from '../tokens';
import type { Counting } from '../password-check';
import type { SecondFactor, Throttled } from './second-factor';

export type EnrolOutcome = { ok: true; secret: string; otpauthUrl: string } | { ok: false; refused: 'already-on' };
export type ConfirmOutcome =
  | { ok: true; recoveryCodes: string[]; session: IssuedRefreshToken }
  | { ok: false; refused: 'no-enrolment' | 'wrong-code' | 'user-gone' }
  | Throttled;
export type DisableOutcome = { ok: true } | { ok: false; refused: 'not-on' };
export type RecoveryCodesOutcome = { ok: true; recoveryCodes: string[] } | { ok: false; refused: 'not-on' };

/**
 * Turning two-factor login on and off (docs/accounts.md), and new recovery codes: the flows behind
 * /api/auth/mfa/enroll, /confirm, /disable and /recovery-codes. Each changes how one signs in, so the routes
 * ask for a recent proof of the owner first (OwnerProofs): a stolen access token alone neither adds a factor
 * nor removes one.
 *  - `enrol`: is it on already (409), then a new secret — replacing an unconfirmed one of the same user;
 *  - `confirm`: a first code from that secret; then every session of the user ends (AccountSessions), the
 *    caller gets a new one (its refresh token), and a security mail goes to the address when mail is configured;
 *  - `disable`: the factor goes; the owner is mailed a notice too;
 *  - `newRecoveryCodes`: ten new ones, the old ones void.
 */
export class TwoFactorEnrolment {
  constructor(
    private readonly factors: SecondFactor,
    private readonly accounts: AccountSessions,
    private readonly notices: AccountNotices | undefined,
    private readonly counting: Counting,
    private readonly logger: Logger,
  ) {}

  async enrol(user: UserRecord): Promise<EnrolOutcome> {
    if (await this.factors.enrolled(user.id)) return { ok: false, refused: 'already-on' };
    const enrolment = await this.factors.enrol(user);
    return enrolment ? { ok: true, ...enrolment } : { ok: false, refused: 'already-on' }; // confirmed meanwhile
  }

  /** `proof`: the caller's session's; the code just given completes it (a one-time code) for the caller's next session. */
  async confirm(user: UserRecord, code: string, proof: SessionProof): Promise<ConfirmOutcome> {
    const outcome = await this.factors.confirm(user.id, code, this.counting);
    if (!outcome.ok) return outcome;
    // Sessions opened before the factor (a thief's among them) end now; the caller goes on in a new one.
    const session = await this.accounts.restart(user, completedBy(proof, AMR.oneTimeCode));
    if (!session) return { ok: false, refused: 'user-gone' };
    this.notify(user, 'two-factor-enabled');
    return { ok: true, recoveryCodes: outcome.recoveryCodes, session };
  }

  async disable(user: UserRecord): Promise<DisableOutcome> {
    if (!(await this.factors.enrolled(user.id))) return { ok: false, refused: 'not-on' };
    await this.factors.disable(user.id);
    this.notify(user, 'two-factor-disabled');
    return { ok: true };
  }

  async newRecoveryCodes(user: UserRecord): Promise<RecoveryCodesOutcome> {
    const codes = await this.factors.newRecoveryCodes(user.id);
    return codes ? { ok: true, recoveryCodes: codes } : { ok: false, refused: 'not-on' };
  }

  /** The owner hears of it, whoever did it (with mail configured); beside the answer, a failure only logged. */
  private notify(user: UserRecord, notice: AccountNotice): void {
    this.notices
      ?.send(user, notice)
      .catch((error: unknown) => this.logger.warn({ err: error, userId: user.id }, 'two-factor notice not sent'));
  }
}
