import type { PasskeySettings } from '../../config/passkey-settings';
import type { PasskeyRecord, PasskeyTransport } from '../stores/passkey-store';
import type * as WebAuthn from '@simplewebauthn/server';

/** What the browser hands back from navigator.credentials.create()/get() (`PublicKeyCredential.toJSON()`). */
export type RegistrationCredential = WebAuthn.RegistrationResponseJSON;
export type AuthenticationCredential = WebAuthn.AuthenticationResponseJSON;
export type CreationOptions = WebAuthn.PublicKeyCredentialCreationOptionsJSON;
export type RequestOptions = WebAuthn.PublicKeyCredentialRequestOptionsJSON;

/** A verified registration: the credential to store. */
export interface NewCredential {
  credentialId: Buffer;
  publicKey: Buffer;
  counter: number;
  transports: PasskeyTransport[];
}

const TRANSPORTS = new Set<string>(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const CEREMONY_TIMEOUT_MS = 120_000;

/**
 * The relying party's side of WebAuthn, through @simplewebauthn/server (loaded on first use: a service with
 * PASSKEYS off never loads it): options for the two ceremonies, and the checks of their answers — origin
 * (WEBAUTHN_ORIGINS), RP id (WEBAUTHN_RP_ID), challenge, user verification (required), signature. Attestation
 * `none`: the service trusts no authenticator maker over another, and asks for no statement that would identify one.
 * The signature counter is the caller's to compare (PasskeyLogin), so that one conditional update decides it.
 */
export class RelyingParty {
  private library: typeof WebAuthn | undefined;

  constructor(private readonly settings: PasskeySettings) {}

  private webauthn(): typeof WebAuthn {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.library ??= require('@simplewebauthn/server') as typeof WebAuthn;
    return this.library;
  }

  /** Options for a new discoverable credential of this user, none of `existing` again. */
  creationOptions(
    user: { id: string; email: string; name: string | null },
    existing: readonly PasskeyRecord[],
  ): Promise<CreationOptions> {
    return this.webauthn().generateRegistrationOptions({
      rpName: this.settings.rpName,
      rpID: this.settings.rpId,
      userName: user.email,
      userDisplayName: user.name ?? user.email,
      userID: new TextEncoder().encode(user.id), // the user handle: the account's id, nothing personal
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId.toString('base64url'),
        transports: passkey.transports,
      })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    });
  }

  /** Options for a sign-in: any discoverable credential of this site, or (second factor) one of `allowed`. */
  requestOptions(allowed: readonly PasskeyRecord[] = []): Promise<RequestOptions> {
    return this.webauthn().generateAuthenticationOptions({
      rpID: this.settings.rpId,
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: 'required',
      allowCredentials: allowed.map((passkey) => ({
        id: passkey.credentialId.toString('base64url'),
        transports: passkey.transports,
      })),
    });
  }

  /** The credential of a valid registration answer to `challenge`; throws for anything else (origin, RP id, UV, signature). */
  async verifyRegistration(credential: RegistrationCredential, challenge: string): Promise<NewCredential> {
    const result = await this.webauthn().verifyRegistrationResponse({
      response: credential,
      expectedChallenge: challenge,
      expectedOrigin: this.settings.origins,
      expectedRPID: this.settings.rpId,
      requireUserVerification: true,
    });
    if (!result.verified) throw new Error('registration not verified');
    const { id, publicKey, counter, transports } = result.registrationInfo.credential;
    return {
      credentialId: Buffer.from(id, 'base64url'),
      publicKey: Buffer.from(publicKey),
      counter,
      transports: (transports ?? credential.response.transports ?? []).filter(
        (transport): transport is PasskeyTransport => TRANSPORTS.has(transport),
      ),
    };
  }

  /**
   * The signature counter of a valid sign-in answer to `challenge` by `passkey`; throws for anything else.
   * The library is given counter 0 so that it leaves the comparison to the caller's conditional update.
   */
  async verifyAuthentication(
    credential: AuthenticationCredential,
    challenge: string,
    passkey: PasskeyRecord,
  ): Promise<number> {
    const result = await this.webauthn().verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: challenge,
      expectedOrigin: this.settings.origins,
      expectedRPID: this.settings.rpId,
      credential: {
        id: passkey.credentialId.toString('base64url'),
        publicKey: new Uint8Array(passkey.publicKey),
        counter: 0,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
    if (!result.verified) throw new Error('authentication not verified');
    return result.authenticationInfo.newCounter;
  }
}

/** The challenge a credential answers, read from its client data (base64url JSON); undefined when unreadable. */
export function challengeOf(credential: { response: { clientDataJSON: string } }): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(credential.response.clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof data.challenge === 'string' && data.challenge.length > 0 && data.challenge.length <= 128
      ? data.challenge
      : undefined;
  } catch {
    return undefined;
  }
}
