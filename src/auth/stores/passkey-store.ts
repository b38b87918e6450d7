import { newId } from '../../stores/ids';
// Passkeys (WebAuthn credentials) of local users (docs/authentication.md): one row per credential, found by
// its credential id (binary, unique: what the browser names at sign-in) and listed by user. Table `passkeys`
// (migration 0012), collection of the same name on MongoDB.

/** The transports a credential's authenticator said it can be reached by (hints for the browser). */
export type PasskeyTransport = 'ble' | 'cable' | 'hybrid' | 'internal' | 'nfc' | 'smart-card' | 'usb';

export interface PasskeyRecord {
  /** Our id (UUIDv7): what the routes name, never the credential id. */
  id: string;
  userId: string;
  /** The credential id the authenticator chose (1–1023 bytes). */
  credentialId: Buffer;
  /** The COSE public key, as the registration gave it. */
  publicKey: Buffer;
  /** The signature counter last seen; 0 for an authenticator that keeps none. */
  counter: number;
  transports: PasskeyTransport[];
  /** What the user called it ("Work laptop"). */
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A passkey to store: new (an id and the creation time are given it), or one put back as it was. */
export type NewPasskey = Omit<PasskeyRecord, 'id' | 'createdAt' | 'lastUsedAt'>;

/** The record every store writes for a new passkey: a new id, added now, never used. */
export function newPasskeyRecord(passkey: NewPasskey): PasskeyRecord {
  return { ...passkey, id: newId(), createdAt: new Date(), lastUsedAt: null };
}

/** At most this many passkeys per user: the list is bounded, and an account is no place to store thousands. */
export const MAX_PASSKEYS_PER_USER = 20;

export interface PasskeyStore {
  /** Throws DuplicateKeyError when the credential id is registered already (to anyone). */
  add(passkey: NewPasskey): Promise<PasskeyRecord>;
  findByCredentialId(credentialId: Buffer): Promise<PasskeyRecord | null>;
  /** The user's passkeys, oldest first (at most MAX_PASSKEYS_PER_USER). */
  listByUser(userId: string): Promise<PasskeyRecord[]>;
  /**
   * Records a sign-in: sets the counter and the time of use, in one conditional update that holds only
   * while the stored counter is below `counter` (or both are 0: an authenticator without a counter). False
   * when it did not hold — a counter that went backwards or stood still (a cloned authenticator), a racing
   * use of the same counter value, or the passkey gone.
   */
  recordUse(id: string, counter: number, usedAt: Date): Promise<boolean>;
  /** Removes one passkey of the user; how many went (0 or 1). */
  remove(userId: string, id: string): Promise<number>;
  /** Every passkey of the user goes (a deleted user); how many went. */
  removeUser(userId: string): Promise<number>;
}
