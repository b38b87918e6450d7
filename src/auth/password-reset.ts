import { createHash, randomBytes } from 'node:crypto';
import type { MailOutbox } from '../mail/outbox';
import { passwordResetMail } from '../mail/templates';
import type { AccountSessions } from './account-sessions';
import type { FailureCounter } from './failure-counter';
import { passwordRefusal } from './password-policy';
import type { PasswordHasher } from './passwords';
import type { AccountTokenStore } from './stores/account-token-store';
import type { UserStore } from './stores/user-store';

/** Reset mails one address may be sent per window, whoever asks (a mailbox is not a target to flood). */
const MAILS_PER_ADDRESS = 3;
const MAIL_WINDOW_MS = 15 * 60_000;

export const digestOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** Why a reset was refused, by field: the caller is told which value to fix. */
export type ResetRefusal = { field: 'token' | 'password'; message: string };

/**
 * Password reset by email (docs/accounts.md). `request` is the same for known and unknown addresses — it
 * is called after the answer has gone (the route answers 202 first), so neither the answer nor its timing
 * depends on whether the account exists; a link is sent only to an existing account. `reset` checks the
 * token without using it up, then the new password against the policy, then uses the token (one statement:
 * of two racing resets one wins) and changes the password through AccountSessions, which ends every session.
 */
export class PasswordReset {
  constructor(
    private readonly users: UserStore,
    private readonly tokens: AccountTokenStore,
    private readonly accounts: AccountSessions,
    private readonly hasher: PasswordHasher,
    private readonly outbox: MailOutbox,
    private readonly counter: FailureCounter,
    private readonly settings: { linkBase: string; ttlMs: number },
    /** Email → keyed hash (AuthEvents.emailHash): the mail counter's key, never the address in clear. */
    private readonly addressKey: (email: string) => string,
  ) {}

  /** Sends a reset link when the address has an account (and has not had too many lately); true when one went. */
  async request(email: string): Promise<boolean> {
    const user = await this.users.findByEmail(email);
    if (!user) return false;
    const blocked = await this.counter.reserve([{ key: `reset-mail:${this.addressKey(email)}`, limit: MAILS_PER_ADDRESS }], MAIL_WINDOW_MS);
    if (blocked > 0) return false;
    const token = randomBytes(32).toString('base64url');
    await this.tokens.deleteForUser(user.id, 'password-reset'); // the newest link is the only one that works
    await this.tokens.create({ digest: digestOf(token), userId: user.id, purpose: 'password-reset', expiresAt: new Date(Date.now() + this.settings.ttlMs) });
    const link = `${this.settings.linkBase}/reset-password?token=${token}`;
    this.outbox.send({ kind: 'password-reset', to: user.email, ...passwordResetMail(link, this.settings.ttlMs) });
    return true;
  }

  /** Sets the new password and ends every session; the user's id, or what to fix. */
  async reset(token: string, password: string): Promise<{ userId: string } | ResetRefusal> {
    const invalid: ResetRefusal = { field: 'token', message: 'is invalid, expired or used already' };
    const digest = digestOf(token);
    const record = await this.tokens.find(digest, 'password-reset');
    const user = record && (await this.users.findById(record.userId));
    if (!record || !user) return invalid;
    const refusal = passwordRefusal(password, { email: user.email, name: user.name });
    if (refusal) return { field: 'password', message: refusal }; // the link still works: try another password
    const passwordHash = await this.hasher.hash(password);
    if ((await this.tokens.consume(digest, 'password-reset')) !== user.id) return invalid;
    if ((await this.accounts.changePassword(user.id, passwordHash)) === undefined) return invalid; // deleted meanwhile
    await this.tokens.deleteForUser(user.id, 'password-reset');
    return { userId: user.id };
  }
}
