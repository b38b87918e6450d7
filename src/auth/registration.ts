import type { Logger } from '../logger';
import { DuplicateKeyError } from '../stores/errors';
import type { AccountNotices } from './account-notices';
import type { EmailVerification } from './email-verification';
import { passwordRefusal } from './password-policy';
import type { PasswordHasher } from './passwords';
import type { UserRecord, UserStore } from './stores/user-store';

export interface Applicant {
  name: string;
  email: string;
  password: string;
}

export type RegistrationOutcome =
  { outcome: 'registered'; user: UserRecord } | { outcome: 'taken' } | { outcome: 'refused'; message: string };

/**
 * Self-registration (AUTH_REGISTRATION=true, docs/accounts.md): the password policy (with the applicant's
 * own inputs), then the hash, then the insert, which the store refuses for a taken address (DuplicateKeyError).
 *
 * With email verification on (`mail`), a new and a taken address must look alike to the caller (the route
 * answers both with one 202): both cost the same argon2 hash and one insert, and each gets a mail beside the
 * answer — the new address its verification link, the owner of the taken one a notice that someone tried.
 * Without verification the caller is told the address is taken (409: docs/accounts.md says why).
 */
export class Registration {
  constructor(
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly logger: Logger,
    private readonly mail: { verification: EmailVerification; notices: AccountNotices } | undefined,
  ) {}

  /** Whether a taken address is answered like a new one. */
  get answersAlike(): boolean {
    return this.mail !== undefined;
  }

  async register(applicant: Applicant, requestId?: string): Promise<RegistrationOutcome> {
    const { name, email, password } = applicant;
    const refusal = passwordRefusal(password, { email, name });
    if (refusal) return { outcome: 'refused', message: refusal };
    const passwordHash = await this.hasher.hash(password);
    return this.enrol(
      email,
      () => this.users.create({ email, passwordHash, role: 'user', name: name.trim(), emailVerified: false }),
      requestId,
    );
  }

  /**
   * The end of every self-registration (with a password, or with a passkey alone: PasskeySignup): `create`
   * makes the account and throws DuplicateKeyError for a taken address; the mails go beside the answer — the
   * verification link to a new address, the "someone tried" notice to the owner of a taken one.
   */
  async enrol(
    email: string,
    create: () => Promise<UserRecord>,
    requestId?: string,
  ): Promise<{ outcome: 'registered'; user: UserRecord } | { outcome: 'taken' }> {
    let user: UserRecord;
    try {
      user = await create();
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      if (this.mail) this.beside(this.notifyOwner(email, this.mail.notices), 'registration notice not sent', requestId);
      return { outcome: 'taken' };
    }
    // The link goes by mail, beside the answer (the outbox never holds it up).
    if (this.mail) this.beside(this.mail.verification.send(user), 'verification link not sent', requestId);
    return { outcome: 'registered', user };
  }

  private async notifyOwner(email: string, notices: AccountNotices): Promise<void> {
    const owner = await this.users.findByEmail(email);
    if (owner) await notices.send(owner, 'registration-attempt');
  }

  /** Mail work beside the answer: its failure is logged, never the caller's. */
  private beside(work: Promise<unknown>, message: string, requestId: string | undefined): void {
    work.catch((error: unknown) => this.logger.warn({ err: error, reqId: requestId }, message));
  }
}
