import type { Logger } from '../../logger';
import type { AccountNotice, AccountNotices } from '../account-notices';
import type { AccountSessions } from '../account-sessions';
import type { AttemptOrigin, Counting, PasswordCheck } from '../password-check';
import type { RefreshSessions } from '../refresh-sessions';
import type { UserRecord } from '../stores/user-store';
import type { IssuedRefreshToken } from '../tokens';
import type { FactorAnswer, SecondFactor } from './second-factor';

type PasswordRefusal = { ok: false; refused: 'wrong-password' } | { ok: false; refused: 'throttled'; retryAfterSeconds: number };

export type EnrolOutcome = { ok: true; secret: string; otpauthUrl: string } | { ok: false; refused: 'already-on' } | PasswordRefusal;
export type ConfirmOutcome = { ok: true; recoveryCodes: string[]; session: IssuedRefreshToken } | { ok: false; refused: 'no-enrolment' | 'wrong-code' | 'user-gone' };
export type DisableOutcome = { ok: true } | { ok: false; refused: 'not-on' | 'wrong-code' } | { ok: false; refused: 'throttled-code'; retryAfterSeconds: number } | PasswordRefusal;

/**
 * Turning two-factor login on and off (docs/accounts.md), the flows behind /api/auth/mfa/enroll, /confirm and
 * /disable. Whatever changes how one signs in asks for the current password first (PasswordCheck: counted by
 * the login throttle), so a stolen access token alone can neither add a factor nor remove one:
 *  - `enrol`: is it on already (409, nothing asked), then the password, then a new secret — replacing an
 *    unconfirmed one of the same user, which only the password's holder can do;
 *  - `confirm`: a first code from that secret; then every session of the user ends (AccountSessions), the
 *    caller gets a new one (its refresh token), and a security mail goes to the address when mail is configured;
 *  - `disable`: the password, then a code or a recovery code; the owner is mailed a notice too.
 */
export class TwoFactorEnrolment {
  constructor(
    private readonly factors: SecondFactor,
    private readonly passwords: PasswordCheck,
    private readonly accounts: AccountSessions,
    private readonly refresh: RefreshSessions,
    private readonly notices: AccountNotices | undefined,
    private readonly counting: Counting,
    private readonly logger: Logger,
  ) {}

  async enrol(user: UserRecord, password: string, origin: AttemptOrigin): Promise<EnrolOutcome> {
    if (await this.factors.enrolled(user.id)) return { ok: false, refused: 'already-on' };
    const check = await this.passwords.check(user, password, origin);
    if (!check.ok) return check;
    const enrolment = await this.factors.enrol(user);
    return enrolment ? { ok: true, ...enrolment } : { ok: false, refused: 'already-on' }; // confirmed meanwhile
  }

  async confirm(user: UserRecord, code: string): Promise<ConfirmOutcome> {
    const outcome = await this.factors.confirm(user.id, code);
    if (!Array.isArray(outcome)) return { ok: false, refused: outcome };
    // Sessions opened before the factor (a thief's among them) end now; the caller goes on in a new one.
    const sessionVersion = await this.accounts.endAllForNewSession(user.id);
    if (sessionVersion === undefined) return { ok: false, refused: 'user-gone' };
    const session = await this.refresh.issue({ id: user.id, sessionVersion });
    this.notify(user, 'two-factor-enabled');
    return { ok: true, recoveryCodes: outcome, session };
  }

  async disable(user: UserRecord, password: string, answer: FactorAnswer, origin: AttemptOrigin): Promise<DisableOutcome> {
    if (!(await this.factors.enrolled(user.id))) return { ok: false, refused: 'not-on' };
    const recheck = await this.passwords.check(user, password, origin);
    if (!recheck.ok) return recheck;
    const check = await this.factors.check(user.id, answer, this.counting);
    if (!check.ok) return check.refused === 'throttled' ? { ok: false, refused: 'throttled-code', retryAfterSeconds: check.retryAfterSeconds } : { ok: false, refused: 'wrong-code' };
    await this.factors.disable(user.id);
    this.notify(user, 'two-factor-disabled');
    return { ok: true };
  }

  /** The owner hears of it, whoever did it (with mail configured); beside the answer, a failure only logged. */
  private notify(user: UserRecord, notice: AccountNotice): void {
    this.notices?.send(user, notice).catch((error: unknown) => this.logger.warn({ err: error, userId: user.id }, 'two-factor notice not sent'));
  }
}
