import type { Logger } from '../logger';
import type { UserRecord, UserStore } from './stores/user-store';
import { hasPassword, type PasswordHasher } from './passwords';

/** A verified user, or a refusal that names the account when the email was known (for the auth log only). */
export type CredentialCheck = { ok: true; user: UserRecord } | { ok: false; userId?: string };

/**
 * Checks an email and password against the user store. Unknown email and wrong password get the same
 * answer to the client (the route's one 401) and cost the same: an unknown email is verified against a dummy hash made once
 * at start-up, so response timing does not reveal which emails exist.
 */
export class CredentialVerifier {
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly users: UserStore,
    private readonly hasher: PasswordHasher,
    private readonly logger: Logger,
  ) {
    this.dummyHash = hasher.createDummyHash();
    this.dummyHash.catch(() => undefined); // awaited on first unknown-user login
  }

  async verify(email: string, password: string): Promise<CredentialCheck> {
    const user = await this.users.findByEmail(email); // every UserStore normalises the email itself
    // A user without a password (NO_PASSWORD) costs the same argon2 work as an unknown one, and matches nothing.
    const usable = user && hasPassword(user.passwordHash);
    const matches = (await this.hasher.verify(usable ? user.passwordHash : await this.dummyHash, password)) && usable;
    if (!user || !matches) return { ok: false, userId: user?.id };
    if (this.hasher.needsRehash(user.passwordHash)) await this.rehash(user, password);
    return { ok: true, user };
  }

  /** The stored hash predates today's parameters: replace it now that the password is known. */
  private async rehash(user: UserRecord, password: string): Promise<void> {
    try {
      await this.users.updatePasswordHash(user.id, await this.hasher.hash(password));
      this.logger.info({ userId: user.id }, 'password hash upgraded to current argon2id parameters');
    } catch (error) {
      // The login itself succeeded; a failed upgrade is retried on the next login.
      this.logger.warn({ err: error, userId: user.id }, 'password rehash failed');
    }
  }
}
