import type { Logger } from '../logger';
import type { UserRecord, UserStore } from './stores/user-store';
import type { PasswordHasher } from './passwords';

/**
 * Checks an email and password against the user store. Unknown email and wrong password look the same to
 * the caller (undefined) and cost the same: an unknown email is verified against a dummy hash made once
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

  async verify(email: string, password: string): Promise<UserRecord | undefined> {
    const user = await this.users.findByEmail(email); // every UserStore normalises the email itself
    const matches = await this.hasher.verify(user?.passwordHash ?? (await this.dummyHash), password);
    if (!user || !matches) return undefined;
    if (this.hasher.needsRehash(user.passwordHash)) await this.rehash(user, password);
    return user;
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
