import { hash, randomBytes } from 'node:crypto';
import type { MailOutbox } from '../mail/outbox';
import type { RenderedMail } from '../mail/templates';
import type { FailureCounter } from './failure-counter';
import type { AccountTokenPurpose, AccountTokenStore } from './stores/account-token-store';
import type { UserRecord } from './stores/user-store';

/** Mails of one kind one address may be sent per window, whoever asks (a mailbox is not a target to flood). */
const MAILS_PER_ADDRESS = 3;
const MAIL_WINDOW_MS = 15 * 60_000;

/** SHA-256 of a token or key, hex: what the stores keep and compare instead of the secret itself (Node's one-shot `hash`). */
export const digestOf = (token: string) => hash('sha256', token, 'hex');

export interface LinkKind {
  purpose: AccountTokenPurpose;
  /** The front end's page the link opens: PUBLIC_URL + path + `?token=…`. */
  path: string;
  ttlMs: number;
  render(link: string, ttlMs: number): RenderedMail;
}

/**
 * Single-use links sent by mail (password reset, email verification): a random token (256 bits, base64url)
 * that exists only in the mail, its SHA-256 digest stored with the user, purpose and expiry; a newer link
 * replaces the older ones; at most MAILS_PER_ADDRESS of a kind per address per window.
 */
export class AccountLinks {
  constructor(
    private readonly tokens: AccountTokenStore,
    private readonly outbox: MailOutbox,
    private readonly counter: FailureCounter,
    private readonly linkBase: string,
    /** Email → keyed hash (AuthEvents.emailHash): the mail counter's key, never the address in clear. */
    private readonly addressKey: (email: string) => string,
  ) {}

  /** Mails a new link of this kind to the user; false when the address had too many lately (nothing sent). */
  async send(user: UserRecord, kind: LinkKind): Promise<boolean> {
    const blocked = await this.counter.reserve(
      [{ key: `${kind.purpose}-mail:${this.addressKey(user.email)}`, limit: MAILS_PER_ADDRESS }],
      MAIL_WINDOW_MS,
    );
    if (blocked > 0) return false;
    const token = randomBytes(32).toString('base64url');
    await this.tokens.deleteForUser(user.id, kind.purpose);
    await this.tokens.create({
      digest: digestOf(token),
      userId: user.id,
      purpose: kind.purpose,
      expiresAt: new Date(Date.now() + kind.ttlMs),
    });
    this.outbox.send({
      kind: kind.purpose,
      to: user.email,
      ...kind.render(`${this.linkBase}${kind.path}?token=${token}`, kind.ttlMs),
    });
    return true;
  }

  /** The user a valid token of this purpose belongs to, without using it up. */
  async holder(token: string, purpose: AccountTokenPurpose): Promise<string | null> {
    return (await this.tokens.find(digestOf(token), purpose))?.userId ?? null;
  }

  /** Uses the token up (one statement: of two racing uses one wins); its user, or null. */
  use(token: string, purpose: AccountTokenPurpose): Promise<string | null> {
    return this.tokens.consume(digestOf(token), purpose);
  }

  /** Every link of this purpose for the user goes. */
  async revoke(userId: string, purpose: AccountTokenPurpose): Promise<void> {
    await this.tokens.deleteForUser(userId, purpose);
  }
}
