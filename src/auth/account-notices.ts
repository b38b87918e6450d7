import type { MailOutbox } from '../mail/outbox';
import { passkeyAddedMail, passkeyRemovedMail, registrationAttemptMail, twoFactorDisabledMail, twoFactorEnabledMail, type RenderedMail } from '../mail/templates';
import type { FailureCounter } from './failure-counter';

/** Notices of one kind one address may be sent per window, whoever triggers them (a mailbox is not a target to flood). */
const NOTICES_PER_ADDRESS = 3;
const NOTICE_WINDOW_MS = 15 * 60_000;

const NOTICES = {
  'registration-attempt': registrationAttemptMail,
  'two-factor-enabled': twoFactorEnabledMail,
  'two-factor-disabled': twoFactorDisabledMail,
  'passkey-added': passkeyAddedMail,
  'passkey-removed': passkeyRemovedMail,
} satisfies Record<string, () => RenderedMail>;

export type AccountNotice = keyof typeof NOTICES;

/**
 * Security notices by mail (with SMTP_URL): something happened to the account that its owner should know of
 * — two-factor login turned on or off, a passkey added or removed, a registration tried with their address. No link and no token in them;
 * queued in the outbox (never in the way of an answer), at most NOTICES_PER_ADDRESS of a kind per window.
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
    const blocked = await this.counter.reserve([{ key: `${notice}-mail:${this.addressKey(user.email)}`, limit: NOTICES_PER_ADDRESS }], NOTICE_WINDOW_MS);
    if (blocked > 0) return false;
    this.outbox.send({ kind: notice, to: user.email, ...NOTICES[notice]() });
    return true;
  }
}
