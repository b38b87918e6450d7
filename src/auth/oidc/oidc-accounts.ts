import { DuplicateKeyError } from '../../stores/errors';
import { NO_PASSWORD } from '../passwords';
import { keepsAWayIn } from '../sign-in-methods';
import type { IdentityStore } from '../stores/identity-store';
import type { SignInMethodStore } from '../stores/sign-in-method-store';
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
  /**
   * A local account holds the address and this provider may not link by it (OIDC_<NAME>_LINK_BY_EMAIL off), or the
   * account has a role other than `user`, a second factor or a passkey: it links from its own signed-in session only.
   */
  | 'account-exists'
  /** Nobody holds the address and registration through this provider is closed. */
  | 'registration-closed';

export type AccountResult = { ok: true; user: UserRecord; how: Resolution } | { ok: false; refused: AccountRefusal };

/** What the account rules need of a provider's settings. */
export interface ProviderRules {
  name: string;
  registration: boolean;
  linkByEmail?: boolean;
}

/** Told when an identity was linked to or unlinked from a user (the owner is mailed: AccountNotices). */
export type LinkListener = (user: UserRecord, change: 'added' | 'removed', provider: string) => void;

/**
 * Finds (or links, or creates) the local user for an identity at a provider. The link is (issuer, subject),
 * never an email alone. An address links a first sign-in to the local account holding it only by consent:
 * the provider is trusted for it (OIDC_<NAME>_LINK_BY_EMAIL), says `email_verified`, the local account has
 * verified the address too (else someone could register a victim's address here first), and the account has
 * the role `user`, no second factor and no passkey. Otherwise the owner links from their own signed-in session (`linkTo`).
 */
export class OidcAccounts {
  constructor(
    private readonly users: UserStore,
    private readonly identities: IdentityStore,
    /** Where removing a way in is decided against the others (a password, passkeys, identities) under a lock on the user. */
    private readonly methods: Pick<SignInMethodStore, 'removeUnlessLast'>,
    /** True when more than a password protects the user (a second factor, a passkey): never linked by an address alone. */
    private readonly beyondPassword: (user: UserRecord) => Promise<boolean> = async () => false,
    private readonly onChange: LinkListener = () => undefined,
  ) {}

  async resolve(provider: ProviderRules, identity: ProviderIdentity): Promise<AccountResult> {
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
      if (!provider.linkByEmail || holder.role !== 'user' || (await this.beyondPassword(holder)))
        return { ok: false, refused: 'account-exists' };
      return this.link(provider.name, identity, holder, 'email');
    }
    if (!provider.registration) return { ok: false, refused: 'registration-closed' };
    try {
      const created = await this.users.create({
        email: identity.email,
        passwordHash: NO_PASSWORD,
        role: 'user',
        name: identity.name ?? null,
        emailVerified: true,
      });
      return await this.link(provider.name, identity, created, 'created');
    } catch (error) {
      // The same person signing in twice at once: the other attempt made the user; link to it like any holder.
      if (!(error instanceof DuplicateKeyError)) throw error;
      return this.resolve({ ...provider, registration: false }, identity);
    }
  }

  /**
   * Links the identity to a signed-in user who asked for it (the authenticated link flow): 'linked' (also when it
   * was theirs already), or 'taken' when it signs in to another account.
   */
  async linkTo(user: UserRecord, provider: string, identity: ProviderIdentity): Promise<'linked' | 'taken'> {
    const existing = await this.identities.find(identity.issuer, identity.subject);
    if (existing && (await this.users.findById(existing.userId)))
      return existing.userId === user.id ? 'linked' : 'taken';
    if (existing) await this.identities.removeUser(existing.userId);
    const result = await this.link(provider, identity, user, 'email');
    return result.ok && result.user.id === user.id ? 'linked' : 'taken';
  }

  /**
   * Unlinks the user's identities at `issuer`, unless that leaves no way to sign in (no password, no other
   * identity, no passkey), decided in the store under a lock on the user so that two removals racing (two
   * providers, or a provider and a passkey) cannot both go: 'not-linked', 'last-way', 'busy' (MongoDB: the
   * user's lease stayed held), or the number unlinked.
   */
  async unlink(user: UserRecord, issuer: string): Promise<'not-linked' | 'last-way' | 'busy' | number> {
    const result = await this.methods.removeUnlessLast(user.id, { issuer }, keepsAWayIn);
    if (result.outcome === 'not-found') return 'not-linked';
    if (result.outcome !== 'removed') return result.outcome;
    this.onChange(user, 'removed', result.identities[0]!.provider);
    return result.identities.length;
  }

  private async link(
    provider: string,
    identity: ProviderIdentity,
    user: UserRecord,
    how: Resolution,
  ): Promise<AccountResult> {
    try {
      await this.identities.link({ issuer: identity.issuer, subject: identity.subject, userId: user.id, provider });
      if (how !== 'created') this.onChange(user, 'added', provider);
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
