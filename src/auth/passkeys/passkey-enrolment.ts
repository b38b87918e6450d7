import type { Logger } from '../../logger';
import { DuplicateKeyError } from '../../stores/errors';
import type { AccountNotices, SignInMethodChange } from '../account-notices';
import { MAX_PASSKEYS_PER_USER, type PasskeyRecord, type PasskeyStore } from '../stores/passkey-store';
import { keepsAWayIn } from '../sign-in-methods';
import type { SignInMethodStore } from '../stores/sign-in-method-store';
import type { UserRecord } from '../stores/user-store';
import type { PasskeyChallenges } from './passkey-challenges';
import { challengeOf, type CreationOptions, type RegistrationCredential, type RelyingParty } from './relying-party';

export type OptionsOutcome = { ok: true; options: CreationOptions } | { ok: false; refused: 'too-many' };
export type RegisterOutcome =
  | { ok: true; passkey: PasskeyRecord }
  | { ok: false; refused: 'bad-challenge' | 'already-registered' }
  | { ok: false; refused: 'invalid-credential'; detail: string };
export type RemoveOutcome = 'removed' | 'not-found' | 'last-way' | 'busy';

/**
 * Adding, listing and removing a user's passkeys (docs/authentication.md). Adding or removing one changes how
 * one signs in: the routes ask for a recent proof of the owner first (OwnerProofs), as for every such change.
 * The options' challenge is bound to the user and to the browser that asked (PasskeyChallenges) and answers
 * once. Removing keeps at least one way in (a password, a provider's identity, a passkey). The owner is mailed
 * either way.
 */
export class PasskeyEnrolment {
  constructor(
    private readonly party: RelyingParty,
    private readonly passkeys: PasskeyStore,
    private readonly methods: Pick<SignInMethodStore, 'removeUnlessLast'>,
    private readonly challenges: PasskeyChallenges,
    private readonly notices: AccountNotices | undefined,
    private readonly logger: Logger,
  ) {}

  list(userId: string): Promise<PasskeyRecord[]> {
    return this.passkeys.listByUser(userId);
  }

  async options(user: UserRecord, binding: string): Promise<OptionsOutcome> {
    const existing = await this.passkeys.listByUser(user.id);
    if (existing.length >= MAX_PASSKEYS_PER_USER) return { ok: false, refused: 'too-many' };
    const options = await this.party.creationOptions(user, existing);
    await this.challenges.issue('passkey-registration', options.challenge, binding, user.id);
    return { ok: true, options };
  }

  async register(
    user: UserRecord,
    credential: RegistrationCredential,
    name: string,
    binding: string,
  ): Promise<RegisterOutcome> {
    const challenge = challengeOf(credential);
    const issued = challenge && (await this.challenges.consume('passkey-registration', challenge, binding));
    if (!issued || issued.userId !== user.id) return { ok: false, refused: 'bad-challenge' };
    let verified;
    try {
      verified = await this.party.verifyRegistration(credential, challenge);
    } catch (error) {
      return {
        ok: false,
        refused: 'invalid-credential',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
    try {
      const passkey = await this.passkeys.add({ userId: user.id, name, ...verified });
      this.notify(user, 'added', passkey);
      return { ok: true, passkey };
    } catch (error) {
      if (error instanceof DuplicateKeyError) return { ok: false, refused: 'already-registered' };
      throw error;
    }
  }

  /**
   * Removes one of the user's passkeys unless it is their last way in: the store decides it under a lock on the
   * user (SignInMethodStore), so that two removals at once — two passkeys, or a passkey and a provider's link,
   * on any replica — cannot both pass the check and leave the account with no way in.
   */
  async remove(user: UserRecord, id: string): Promise<RemoveOutcome> {
    const result = await this.methods.removeUnlessLast(user.id, { passkeyId: id }, keepsAWayIn);
    if (result.outcome !== 'removed') return result.outcome;
    this.notify(user, 'removed', result.passkeys[0]!);
    return 'removed';
  }

  /**
   * The owner hears of it, whoever did it (with mail configured), by the notice every way to sign in uses;
   * beside the answer, a failure only logged.
   */
  private notify(user: UserRecord, change: SignInMethodChange, passkey: PasskeyRecord): void {
    this.notices
      ?.signInMethodChanged(user, change, passkeyMethod(passkey.name))
      .catch((error: unknown) => this.logger.warn({ err: error, userId: user.id }, 'passkey notice not sent'));
  }
}

/** A passkey as its owner knows it, in the sign-in method notice: `a passkey "Work laptop"`. */
export const passkeyMethod = (name: string) => `a passkey "${name}"`;
