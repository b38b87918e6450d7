import { passwordResetMail } from '../mail/templates';
import type { AccountLinks } from './account-links';
import type { AccountSessions } from './account-sessions';
import { passwordRefusal } from './password-policy';
import type { PasswordHasher } from './passwords';
import type { UserStore } from './stores/user-store';

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
    private readonly links: AccountLinks,
    private readonly accounts: AccountSessions,
    private readonly hasher: PasswordHasher,
    private readonly ttlMs: number,
  ) {}

  /** Sends a reset link when the address has an account (and has not had too many lately); true when one went. */
  async request(email: string): Promise<boolean> {
    const user = await this.users.findByEmail(email);
    return user
      ? this.links.send(user, {
          purpose: 'password-reset',
          path: '/reset-password',
          ttlMs: this.ttlMs,
          render: passwordResetMail,
        })
      : false;
  }

  /** Sets the new password and ends every session; the user's id, or what to fix. */
  async reset(token: string, password: string): Promise<{ userId: string } | ResetRefusal> {
    const invalid: ResetRefusal = { field: 'token', message: 'is invalid, expired or used already' };
    const holder = await this.links.holder(token, 'password-reset');
    const user = holder && (await this.users.findById(holder));
    if (!user) return invalid;
    const refusal = passwordRefusal(password, { email: user.email, name: user.name });
    if (refusal) return { field: 'password', message: refusal }; // the link still works: try another password
    const passwordHash = await this.hasher.hash(password);
    if ((await this.links.use(token, 'password-reset')) !== user.id) return invalid;
    if ((await this.accounts.setPassword(user.id, passwordHash)) === undefined) return invalid; // deleted meanwhile
    await this.links.revoke(user.id, 'password-reset');
    return { userId: user.id };
  }
}
