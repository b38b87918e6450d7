// Two-factor login (TOTP, docs/accounts.md): one credential per user — the authenticator secret, sealed
// (src/auth/mfa/secret-box.ts), whether its first code confirmed it, and the last time step a code was
// used at — and the digests of the user's unused recovery codes. Tables `mfa_credentials` and
// `mfa_recovery_codes` (migration 0010); on MongoDB the collection `mfa_credentials`, whose documents hold
// the code digests too (mongo-mfa-store.ts: a confirmation and its codes are one atomic update).

export interface MfaRecord {
  userId: string;
  /** The sealed secret: never the secret itself. */
  secret: string;
  /** A code from the authenticator confirmed it: from then on login asks for one. */
  confirmed: boolean;
  /** The TOTP time step of the last code accepted (codes of that step or earlier are refused); null before any. */
  lastStep: number | null;
}

export interface MfaStore {
  find(userId: string): Promise<MfaRecord | null>;
  /** Stores a new, unconfirmed secret, replacing an unconfirmed one; false when the user has a confirmed one. */
  begin(userId: string, secret: string): Promise<boolean>;
  /**
   * Confirms this very pending secret, with the time step of its first code and the digests of new recovery
   * codes (any older ones go): false when it is no longer the pending one (a newer enrolment, or confirmed).
   */
  confirm(userId: string, secret: string, step: number, recoveryDigests: readonly string[]): Promise<boolean>;
  /**
   * Records the time step of an accepted code: true only when it is later than any step used before. One
   * conditional statement, so a code replayed, even in parallel with its first use, gets false.
   */
  useStep(userId: string, step: number): Promise<boolean>;
  /** Uses a recovery code up (one delete: of two racing uses one wins); true when it was there. */
  useRecoveryCode(userId: string, digest: string): Promise<boolean>;
  recoveryCodesLeft(userId: string): Promise<number>;
  /**
   * New recovery codes for a confirmed credential, every older one void, as one change (two racing
   * replacements leave one set, never both); false when the user has no confirmed credential.
   */
  replaceRecoveryCodes(userId: string, recoveryDigests: readonly string[]): Promise<boolean>;
  /** Replaces the sealed secret when it is still `previous` (key rotation). */
  reseal(userId: string, previous: string, next: string): Promise<void>;
  /** The user's credential and recovery codes go (disable; a deleted user); true when there was a credential. */
  remove(userId: string): Promise<boolean>;
}
