import type { MailOutbox } from '../mail/outbox';
import {
  registrationAttemptMail,
  signInMethodMail,
  twoFactorDisabledMail,
  twoFactorEnabledMail,
  type RenderedMail,
} from '../mail/templates';
import type { FailureCounter } from './failure-counter';

/** Notices of one kind one address may be sent per window, whoever triggers them (a mailbox is not a target to flood). */
const NOTICES_PER_ADDRESS = 3;
const NOTICE_WINDOW_MS = 15 * 60_000;

const NOTICES = {
  'registration-attempt': registrationAttemptMail,
  'two-factor-enabled': twoFactorEnabledMail,
  'two-factor-disabled': twoFactorDisabledMail,
} satisfies Record<string, () => RenderedMail>;

export type AccountNotice = keyof typeof NOTICES;

/** A way to sign in that changed: `added` or `removed`. */
export type SignInMethodChange = 'added' | 'removed';

/**
 * Security notices by mail (with SMTP_URL): something happened to the account that its owner should know of
 * — two-factor login turned on or off, a way to sign in added or removed (a provider, a passkey), a registration
 * tried with their address. No link and no token in them; queued in the outbox (never in the way of an answer),
 * at most NOTICES_PER_ADDRESS of a kind per window.
 */
export class AccountNotices {
  constructor(
    private readonly outbox: MailOutbox,
    private readonly counter: FailureCounter,
    /** Email → keyed hash (AuthEvents.emailHash): the counter's key, never the address in clear. */
    private readonly addressKey: (email: string) => string,
  ) {}

  /** Queues the notice; false when the address had too many of this kind lately (nothing sent). */
  async send(user: { email: string }, notice: AccountNotice): Promise<boolean> {
    return this.queue(user, notice, NOTICES[notice]());
  }

  /**
   * Tells the owner that a way to sign in was added to or removed from the account: `method` names it as the
   * owner knows it ("sign-in with corp", `a passkey "Work laptop"`). Every flow that changes how one signs in calls it.
   */
  async signInMethodChanged(user: { email: string }, change: SignInMethodChange, method: string): Promise<boolean> {
    return this.queue(user, `sign-in-method-${change}`, signInMethodMail(change, method));
  }

  private async queue(user: { email: string }, kind: string, mail: RenderedMail): Promise<boolean> {
    const blocked = await this.counter.reserve(
      [{ key: `${kind}-mail:${this.addressKey(user.email)}`, limit: NOTICES_PER_ADDRESS }],
      NOTICE_WINDOW_MS,
    );
    if (blocked > 0) return false;
    this.outbox.send({ kind, to: user.email, ...mail });
    return true;
  }
}
