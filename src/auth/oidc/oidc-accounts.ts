import { DuplicateKeyError } from '../../stores/errors';
import { hasPassword, NO_PASSWORD } from '../passwords';
import type { IdentityStore, LinkedIdentity } from '../stores/identity-store';
import type { PasskeyStore } from '../stores/passkey-store';
import type { UserRecord, UserStore } from '../stores/user-store';
import type { ProviderIdentity } from './provider-types';

/** How a sign-in found its user: the identity was linked, it was linked now by a verified address, or a user was made. */
export type Resolution = 'linked' | 'email' | 'created';

/** Why a provider's identity gets no account here. */
export type AccountRefusal =
  /** The provider has not verified the address (or gave none): it links to nothing and creates nothing. */
  | 'unverified-email'
  /** A local account holds the address but has not proven it: linking could hand it to whoever registered it. */
  | 'account-unverified'
  /** Nobody holds the address and registration through this provider is closed. */
  | 'registration-closed';

export type AccountResult = { ok: true; user: UserRecord; how: Resolution } | { ok: false; refused: AccountRefusal };

/**
 * Finds (or links, or creates) the local user for an identity at a provider. The link is (issuer, subject),
 * never an email alone; an address counts only when the provider says `email_verified`, and then only for a
 * local account whose address is verified too (otherwise someone could register a victim's address here
 * first and have the victim's provider sign-in land in the account they hold the password of).
 */
export class OidcAccounts {
  constructor(
    private readonly users: UserStore,
    private readonly identities: IdentityStore,
    /** The users' passkeys (PASSKEYS=true): another way in besides a password and identities. */
    private readonly passkeys?: Pick<PasskeyStore, 'listByUser'>,
  ) {}

  async resolve(provider: { name: string; registration: boolean }, identity: ProviderIdentity): Promise<AccountResult> {
    const linked = await this.identities.find(identity.issuer, identity.subject);
    if (linked) {
      const user = await this.users.findById(linked.userId);
      if (user) return { ok: true, user, how: 'linked' };
      await this.identities.removeUser(linked.userId); // a user deleted before links went with users: start afresh
    }
    if (!identity.email || !identity.emailVerified) return { ok: false, refused: 'unverified-email' };
    const holder = await this.users.findByEmail(identity.email);
    if (holder) {
      if (!holder.emailVerified) return { ok: false, refused: 'account-unverified' };
      return this.link(provider.name, identity, holder, 'email');
    }
    if (!provider.registration) return { ok: false, refused: 'registration-closed' };
    try {
      const created = await this.users.create({ email: identity.email, passwordHash: NO_PASSWORD, role: 'user', name: identity.name ?? null, emailVerified: true });
      return await this.link(provider.name, identity, created, 'created');
    } catch (error) {
      // The same person signing in twice at once: the other attempt made the user; link to it like any holder.
      if (!(error instanceof DuplicateKeyError)) throw error;
      return this.resolve({ ...provider, registration: false }, identity);
    }
  }

  /**
   * Unlinks the user's identity at `issuer`, unless it is their last way to sign in (no password, no passkey
   * and no other identity): 'not-linked', 'last-way', or the number unlinked.
   */
  async unlink(user: UserRecord, issuer: string): Promise<'not-linked' | 'last-way' | number> {
    const identities = await this.identities.listByUser(user.id);
    const unlinking = identities.filter((identity) => identity.issuer === issuer);
    if (unlinking.length === 0) return 'not-linked';
    if (hasPassword(user.passwordHash) || (await this.passkeys?.listByUser(user.id))?.length) return this.identities.unlink(user.id, issuer);
    if (identities.length === unlinking.length) return 'last-way';
    const unlinked = await this.identities.unlink(user.id, issuer);
    // Two unlinks at once (the user's last two providers) each saw the other's identity and went ahead: no
    // lock spans the check and the delete on every engine. Whoever then finds none left puts theirs back,
    // so at least one way in remains whatever the interleaving; of two such requests one or both are refused.
    if ((await this.identities.listByUser(user.id)).length > 0) return unlinked;
    for (const identity of unlinking) await this.relink(identity);
    return 'last-way';
  }

  /** An unlinked identity put back as it was (unless a sign-in through it linked it again meanwhile). */
  private async relink(identity: LinkedIdentity): Promise<void> {
    try {
      await this.identities.link(identity);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
  }

  private async link(provider: string, identity: ProviderIdentity, user: UserRecord, how: Resolution): Promise<AccountResult> {
    try {
      await this.identities.link({ issuer: identity.issuer, subject: identity.subject, userId: user.id, provider });
      return { ok: true, user, how };
    } catch (error) {
      // Linked in parallel by the same sign-in: whoever won links this identity; use their link.
      if (!(error instanceof DuplicateKeyError)) throw error;
      const winner = await this.identities.find(identity.issuer, identity.subject);
      const owner = winner && (await this.users.findById(winner.userId));
      if (!owner) throw error;
      return { ok: true, user: owner, how: 'linked' };
    }
  }
}
