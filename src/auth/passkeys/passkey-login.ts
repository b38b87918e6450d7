import type { PendingSecondStep } from '../mfa/two-factor-login';
import { completedBy, PASSKEY_AMR, provenNow, type SessionProof } from '../owner-proof/proofs';
import type { PasskeyRecord, PasskeyStore } from '../stores/passkey-store';
import type { UserRecord, UserStore } from '../stores/user-store';
import type { PasskeyChallenges } from './passkey-challenges';
import { challengeOf, type AuthenticationCredential, type RelyingParty, type RequestOptions } from './relying-party';

/** Why a passkey sign-in was refused. */
export type PasskeyLoginRefusal =
  /** The challenge is unknown to this browser, expired or used already (a replay, or a lost race). */
  | 'bad-challenge'
  /** No passkey has this credential id (never registered, or removed). */
  | 'unknown-credential'
  /** The answer does not verify: origin, RP id, user verification, signature, or another user's passkey for a second factor. */
  | 'invalid-credential'
  /** The signature counter did not go forward: a cloned authenticator (or a racing use of the same answer). */
  | 'counter'
  | 'user-gone';

export type PasskeyLoginOutcome =
  | { ok: true; user: UserRecord; passkey: PasskeyRecord; proof: SessionProof }
  | { ok: false; refused: PasskeyLoginRefusal; userId?: string; detail?: string };

/**
 * Whose passkey may answer: the user of a login waiting for its second factor (with that login's first factor and
 * the mfaToken's id), or the signed-in caller proving it again (POST /api/auth/reauth, `tokenId` 'reauth').
 */
export type PasskeyScope = Pick<PendingSecondStep, 'user' | 'tokenId'> & { firstFactor?: SessionProof };

/**
 * Sign-in with a passkey (docs/authentication.md): usernameless — the options name no account, the browser
 * offers the discoverable credentials it holds for this site, and the answer says whose it is — or, as a
 * second factor after a password, limited to that user's passkeys. The challenge answers once, only in the
 * browser that asked; the signature counter must go forward where the authenticator keeps one (one
 * conditional update in the store, so a clone and a racing replay are both refused).
 */
export class PasskeyLogin {
  constructor(
    private readonly party: RelyingParty,
    private readonly passkeys: PasskeyStore,
    private readonly challenges: PasskeyChallenges,
    private readonly users: Pick<UserStore, 'findById'>,
  ) {}

  /**
   * Options for any passkey of this site, or (`secondStep`, after a password) one of that user's; the latter's
   * challenge is bound to the mfaToken too, so that only a verify that spends that token can answer it.
   */
  async options(binding: string, secondStep?: PasskeyScope): Promise<RequestOptions> {
    const allowed = secondStep ? await this.passkeys.listByUser(secondStep.user.id) : [];
    const options = await this.party.requestOptions(allowed);
    await this.challenges.issue('passkey-login', options.challenge, bound(binding, secondStep), secondStep?.user.id);
    return options;
  }

  /** A sign-in's answer: alone, or (`secondStep`, whose mfaToken the caller spends: TwoFactorLogin.verifyBy) as the second factor. */
  async verify(
    credential: AuthenticationCredential,
    binding: string,
    secondStep?: PasskeyScope,
  ): Promise<PasskeyLoginOutcome> {
    const challenge = challengeOf(credential);
    // Used up first, before the signature is checked: of N verifies racing with one answer, one goes on.
    const issued = challenge && (await this.challenges.consume('passkey-login', challenge, bound(binding, secondStep)));
    if (!issued) return { ok: false, refused: 'bad-challenge' };
    const passkey = await this.passkeys.findByCredentialId(Buffer.from(credential.rawId, 'base64url'));
    if (!passkey) return { ok: false, refused: 'unknown-credential' };
    if (issued.userId !== undefined && issued.userId !== passkey.userId)
      return { ok: false, refused: 'invalid-credential', userId: issued.userId, detail: "another user's passkey" };
    const handle = credential.response.userHandle;
    if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== passkey.userId)
      return { ok: false, refused: 'invalid-credential', userId: passkey.userId, detail: 'user handle' };
    let counter: number;
    try {
      counter = await this.party.verifyAuthentication(credential, challenge, passkey);
    } catch (error) {
      return {
        ok: false,
        refused: 'invalid-credential',
        userId: passkey.userId,
        detail: error instanceof Error ? error.message : String(error),
      };
    }
    if (!(await this.passkeys.recordUse(passkey.id, counter, new Date())))
      return { ok: false, refused: 'counter', userId: passkey.userId };
    const user = await this.users.findById(passkey.userId);
    if (!user) return { ok: false, refused: 'user-gone', userId: passkey.userId };
    const proof = secondStep?.firstFactor
      ? completedBy(secondStep.firstFactor, ...PASSKEY_AMR)
      : provenNow(...PASSKEY_AMR);
    return { ok: true, user, passkey, proof };
  }
}

/** The browser's binding, and for a second factor the mfaToken's id with it. */
const bound = (binding: string, secondStep: PasskeyScope | undefined) =>
  secondStep ? `${binding}:${secondStep.tokenId}` : binding;
