// Single-use account tokens (password reset, email verification): only the SHA-256 digest of each token is
// kept, with its user, purpose and expiry. The same table records the two-factor challenge tokens already
// spent (purpose `spent-mfa-challenge`, src/auth/mfa/spent-challenges.ts): the digest is the key, so of two
// racing inserts of one token exactly one succeeds, on every engine. Table `account_tokens` / collection
// `account_tokens`; expired ones are removed by the clean-up job (relational) or a TTL index (MongoDB).

export type AccountTokenPurpose =
  | 'password-reset'
  | 'email-verification'
  | 'spent-mfa-challenge'
  | 'passkey-registration'
  | 'passkey-login'
  | 'passkey-signup';

export interface AccountTokenRecord {
  /** SHA-256 of the token, 64 lower-case hex characters. */
  digest: string;
  userId: string;
  purpose: AccountTokenPurpose;
  expiresAt: Date;
}

export interface AccountTokenStore {
  /** Throws DuplicateKeyError when the digest is stored already (the key of the table/collection). */
  create(record: AccountTokenRecord): Promise<void>;
  /** The token's record while it is unexpired (it stays usable). */
  find(digest: string, purpose: AccountTokenPurpose, now?: Date): Promise<AccountTokenRecord | null>;
  /**
   * Uses the token up: deletes it in one statement and answers its user, or null when it was unknown,
   * expired or used already (of two racing uses, one gets the user).
   */
  consume(digest: string, purpose: AccountTokenPurpose, now?: Date): Promise<string | null>;
  /** Every token of this purpose for the user goes (a newer link replaces the older ones; a reset ends them). */
  deleteForUser(userId: string, purpose: AccountTokenPurpose): Promise<number>;
}
