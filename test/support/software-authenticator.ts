import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

// A passkey authenticator in memory, for tests over HTTP without a browser: it answers the service's creation
// and request options as a platform authenticator with user verification would (ES256, attestation `none`,
// discoverable credentials), with the client data a browser on `origin` would sign. The real browser side is
// tested in Chromium (test/auth/passkeys-browser.test.ts); this one lets every engine's suite run ceremonies.
// CBOR comes from the relying-party library's own helpers: nothing here parses, it only builds.

type Json = Record<string, unknown>;

interface HeldCredential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const FLAGS = { userPresent: 0x01, userVerified: 0x04, attestedData: 0x40 };

export class SoftwareAuthenticator {
  private readonly held: HeldCredential[] = [];

  /** `counting`: the signature counter moves on each use (a security key); otherwise it stays 0 (a synced passkey). */
  constructor(
    private readonly origin: string,
    private readonly counting = false,
  ) {}

  /** The credentials it holds, newest last. */
  get credentials(): readonly HeldCredential[] {
    return this.held;
  }

  /**
   * navigator.credentials.create(): a new credential's `toJSON()` for these creation options; or, with `reusing`,
   * one with the id and key of a credential held already (what no honest authenticator does: a replayed registration).
   */
  create(options: Json, reusing?: HeldCredential): Json {
    const rpId = (options.rp as { id: string }).id;
    const privateKey = reusing?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const credential: HeldCredential = {
      id: reusing?.id ?? randomBytes(16),
      privateKey,
      rpId,
      userHandle: (options.user as { id: string }).id,
      counter: 0,
    };
    if (!reusing) this.held.push(credential);
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(credential.id.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, credential.id, Buffer.from(isoCBOR.encode(coseKey))]);
    const authData = this.authenticatorData(
      credential,
      FLAGS.userPresent | FLAGS.userVerified | FLAGS.attestedData,
      attested,
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as Parameters<typeof isoCBOR.encode>[0],
    );
    return {
      id: credential.id.toString('base64url'),
      rawId: credential.id.toString('base64url'),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge as string),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get(): an assertion's `toJSON()` by the newest credential for the RP (or one of `allowCredentials`). */
  get(options: Json, credential = this.pick(options)): Json {
    if (this.counting) credential.counter += 1;
    const authData = this.authenticatorData(credential, FLAGS.userPresent | FLAGS.userVerified);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge as string);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]),
      credential.privateKey,
    );
    const id = credential.id.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: credential.userHandle,
      },
    };
  }

  private pick(options: Json): HeldCredential {
    const allowed = ((options.allowCredentials as Array<{ id: string }> | undefined) ?? []).map(
      (descriptor) => descriptor.id,
    );
    const usable = this.held.filter(
      (credential) =>
        credential.rpId === options.rpId &&
        (allowed.length === 0 || allowed.includes(credential.id.toString('base64url'))),
    );
    const chosen = usable.at(-1);
    if (!chosen) throw new Error('NotAllowedError: no credential for these options');
    return chosen;
  }

  private authenticatorData(credential: HeldCredential, flags: number, attested = Buffer.alloc(0)): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    return Buffer.concat([sha256(credential.rpId), Buffer.from([flags]), counter, attested]);
  }

  private clientData(type: string, challenge: string): string {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false })).toString(
      'base64url',
    );
  }
}
