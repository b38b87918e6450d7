import { newId } from '../../stores/ids';
import { normaliseEmail } from '../stores/email';
import { NO_PASSWORD } from '../passwords';
import type { Registration } from '../registration';
import type { PasskeyRecord, PasskeyStore } from '../stores/passkey-store';
import type { SignInMethodStore } from '../stores/sign-in-method-store';
import type { UserRecord, UserStore } from '../stores/user-store';
import { digestOf } from '../account-links';
import type { PasskeyChallenges } from './passkey-challenges';
import { challengeOf, type CreationOptions, type RegistrationCredential, type RelyingParty } from './relying-party';

/** Who signs up: the address and the name, as POST /api/auth/register takes them (without a password). */
export interface PasskeyApplicant {
  email: string;
  name: string;
}

export type SignupOptionsOutcome = { ok: true; options: CreationOptions } | { ok: false; refused: 'taken' };
export type SignupOutcome =
  | { outcome: 'registered'; user: UserRecord; passkey: PasskeyRecord }
  | { outcome: 'taken' }
  | { outcome: 'refused'; refused: 'bad-challenge' | 'already-registered' }
  | { outcome: 'refused'; refused: 'invalid-credential'; detail: string };

/**
 * Self-registration with a passkey alone (AUTH_REGISTRATION and PASSKEYS, docs/authentication.md): the account
 * has no password at all (NO_PASSWORD), its one way in is the passkey made in the ceremony. It answers as
 * POST /api/auth/register does (Registration.enrol): with email verification on, alike for a new and a taken
 * address (the owner of a taken one is mailed, nothing is made); without it, a taken address is told — at the
 * options already, before the authenticator makes a credential for nothing.
 *
 * The account's id is chosen with the options (it is the credential's user handle) and kept with the challenge;
 * the challenge is bound to the browser (the passkeyFlow cookie) and to the address and name asked with, which
 * the verify sends again: an answer made for one address never makes another's account. User and passkey are
 * made together (SignInMethodStore.createWithPasskey), so no account is ever left without its way in.
 */
export class PasskeySignup {
  constructor(
    private readonly party: RelyingParty,
    private readonly passkeys: Pick<PasskeyStore, 'findByCredentialId'>,
    private readonly methods: Pick<SignInMethodStore, 'createWithPasskey'>,
    private readonly users: Pick<UserStore, 'findByEmail'>,
    private readonly challenges: PasskeyChallenges,
    private readonly registration: Registration,
  ) {}

  /** Whether a taken address is answered like a new one (email verification on). */
  get answersAlike(): boolean {
    return this.registration.answersAlike;
  }

  async options(applicant: PasskeyApplicant, binding: string): Promise<SignupOptionsOutcome> {
    if (!this.answersAlike && (await this.users.findByEmail(applicant.email))) return { ok: false, refused: 'taken' };
    const id = newId();
    const options = await this.party.creationOptions(
      { id, email: normaliseEmail(applicant.email), name: applicant.name.trim() },
      [],
    );
    await this.challenges.issue('passkey-signup', options.challenge, boundTo(binding, applicant), id);
    return { ok: true, options };
  }

  async register(
    applicant: PasskeyApplicant,
    credential: RegistrationCredential,
    passkeyName: string,
    binding: string,
    requestId?: string,
  ): Promise<SignupOutcome> {
    const challenge = challengeOf(credential);
    const issued = challenge
      ? await this.challenges.consume('passkey-signup', challenge, boundTo(binding, applicant))
      : null;
    const userId = issued?.userId;
    if (!challenge || !userId) return { outcome: 'refused', refused: 'bad-challenge' };
    let verified;
    try {
      verified = await this.party.verifyRegistration(credential, challenge);
    } catch (error) {
      return {
        outcome: 'refused',
        refused: 'invalid-credential',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
    // A credential id registered already is the credential's problem, not the address's: told apart before the
    // insert, whose DuplicateKeyError then means the address (a taken address answers as registration does).
    if (await this.passkeys.findByCredentialId(verified.credentialId))
      return { outcome: 'refused', refused: 'already-registered' };
    const { email, name } = applicant;
    let passkey: PasskeyRecord | undefined;
    const enrolled = await this.registration.enrol(
      email,
      async () => {
        const made = await this.methods.createWithPasskey(
          { id: userId, email, passwordHash: NO_PASSWORD, role: 'user', name: name.trim(), emailVerified: false },
          { name: passkeyName, ...verified },
        );
        passkey = made.passkey;
        return made.user;
      },
      requestId,
    );
    return enrolled.outcome === 'registered' ? { ...enrolled, passkey: passkey! } : enrolled;
  }
}

/** The browser's binding with the address and name the options were asked for: the verify must name the same. */
const boundTo = (binding: string, applicant: PasskeyApplicant) =>
  `${binding}:${digestOf(`${normaliseEmail(applicant.email)}\n${applicant.name.trim()}`)}`;
