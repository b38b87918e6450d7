import { emailVerificationMail } from '../mail/templates';
import type { AccountLinks, LinkKind } from './account-links';
import type { UserRecord, UserStore } from './stores/user-store';

/**
 * Email verification (EMAIL_VERIFICATION=optional|required, docs/accounts.md): registration mails a link;
 * following it marks the address verified. `resend` is the same for every address (called after the answer,
 * like a reset request) and mails only an existing, unverified account.
 */
export class EmailVerification {
  private readonly kind: LinkKind;

  constructor(
    private readonly users: UserStore,
    private readonly links: AccountLinks,
    ttlMs: number,
    /** Called with a user whose address was just verified (the guards' cache forgets them: with `required`, their sessions count at once). */
    private readonly verified: (userId: string) => void = () => undefined,
  ) {
    this.kind = { purpose: 'email-verification', path: '/verify-email', ttlMs, render: emailVerificationMail };
  }

  /** Mails the link to a user who just registered. */
  send(user: UserRecord): Promise<boolean> {
    return this.links.send(user, this.kind);
  }

  async resend(email: string): Promise<boolean> {
    const user = await this.users.findByEmail(email);
    return user && !user.emailVerified ? this.links.send(user, this.kind) : false;
  }

  /** Marks the token's address verified (the token is used up); the user's id, or null for a bad token. */
  async verify(token: string): Promise<string | null> {
    const userId = await this.links.use(token, 'email-verification');
    if (!userId || !(await this.users.markEmailVerified(userId))) return null;
    this.verified(userId);
    return userId;
  }
}
