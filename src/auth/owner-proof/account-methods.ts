import { hasPassword } from '../passwords';
import type { IdentityStore } from '../stores/identity-store';
import type { PasskeyStore } from '../stores/passkey-store';
import type { UserRecord } from '../stores/user-store';
import type { AccountMethods } from './proofs';

/** Where each way in is stored; a feature that is off (no MFA_ENCRYPTION_KEY, PASSKEYS, OIDC_PROVIDERS) has none. */
export interface MethodSources {
  secondFactor?: { enrolled(userId: string): Promise<boolean> };
  passkeys?: Pick<PasskeyStore, 'listByUser'>;
  identities?: Pick<IdentityStore, 'listByUser'>;
}

/** What signs a user in, read from the stores as they are now (never a cache: it decides who may change it). */
export class AccountMethodsReader {
  constructor(private readonly sources: MethodSources) {}

  async of(user: UserRecord): Promise<AccountMethods> {
    const { secondFactor, passkeys, identities } = this.sources;
    const [factor, keys, linked] = await Promise.all([
      secondFactor?.enrolled(user.id) ?? false,
      passkeys?.listByUser(user.id) ?? [],
      identities?.listByUser(user.id) ?? [],
    ]);
    return {
      password: hasPassword(user.passwordHash),
      secondFactor: factor,
      passkeys: keys.length,
      providers: [...new Set(linked.map((identity) => identity.provider))],
    };
  }

  /** More than a password protects the account (a second factor, a passkey): an address alone never links into it. */
  async beyondPassword(user: UserRecord): Promise<boolean> {
    const account = await this.of(user);
    return account.secondFactor || account.passkeys > 0;
  }
}
