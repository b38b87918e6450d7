// What proved the owner of an account, and when: the `auth_time` and `amr` (RFC 8176) of a session, carried
// by its refresh token and by every access token it gives, and the one rule that says whether such a proof
// would sign a given account in from scratch (docs/authentication.md, "Proving the owner again").

/** RFC 8176 §2 values where they fit; `fed` (a sign-in at an OpenID Connect provider) is this service's own. */
export const AMR = {
  password: 'pwd',
  /** A code from the authenticator app, or a recovery code (each a one-time password). */
  oneTimeCode: 'otp',
  /** A passkey: proof of possession of a key held by the authenticator ... */
  passkey: 'hwk',
  /** ... with user verification (a PIN, a fingerprint, the device's unlock). */
  userVerified: 'user',
  /** More than one factor. */
  multiFactor: 'mfa',
  provider: 'fed',
} as const;

/** How the owner proved it, and when (seconds since the epoch; 0: never, as for a token of an older release). */
export interface SessionProof {
  authTime: number;
  amr: readonly string[];
}

/** No proof at all: what a token without `auth_time` carries. */
export const NO_PROOF: SessionProof = { authTime: 0, amr: [] };

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A proof just given, by these methods (a sign-in, POST /api/auth/reauth). */
export const provenNow = (...amr: string[]): SessionProof => ({ authTime: nowSeconds(), amr: unique(amr) });

/** A second step completing a first one: the methods of both, at the first step's time (the older of the two). */
export const completedBy = (first: SessionProof, ...amr: string[]): SessionProof => ({
  authTime: first.authTime,
  amr: unique([...first.amr, ...amr, AMR.multiFactor]),
});

/**
 * A proof after a way in went: without the methods of that kind (the proof may have been made with the very
 * passkey or provider removed, and a proof names only the kind), so the next change asks again.
 */
export const without = (proof: SessionProof, ...methods: string[]): SessionProof => ({
  authTime: proof.authTime,
  amr: proof.amr.filter((method) => !methods.includes(method)),
});

/** A passkey answered with user verification: two factors in one gesture. */
export const PASSKEY_AMR = [AMR.passkey, AMR.userVerified, AMR.multiFactor];

const unique = (values: readonly string[]) => [...new Set(values)];

/** What signs an account in, as stored now. */
export interface AccountMethods {
  password: boolean;
  /** Two-factor login (TOTP) is on: a password or a provider is followed by a code. */
  secondFactor: boolean;
  passkeys: number;
  /** The providers whose identities are linked (their configured names). */
  providers: readonly string[];
}

/**
 * The rule: does a proof by `amr` sign this account in from scratch, as its sign-in would ask? A passkey
 * alone does (with user verification it is two factors); otherwise a first factor the account has (its
 * password, a linked provider) and, when two-factor login is on, a code as well. One predicate for every
 * change to the ways in (owner-gate.ts), for POST /api/auth/reauth, and for the table in the docs.
 */
export function signsIn(amr: readonly string[], account: AccountMethods): boolean {
  if (amr.includes(AMR.passkey) && account.passkeys > 0) return true;
  const firstFactor =
    (amr.includes(AMR.password) && account.password) || (amr.includes(AMR.provider) && account.providers.length > 0);
  return firstFactor && (!account.secondFactor || amr.includes(AMR.oneTimeCode));
}

/** A proof no older than `maxAgeSeconds` that signs the account in. */
export function recentlyProven(
  proof: SessionProof,
  account: AccountMethods,
  maxAgeSeconds: number,
  now = nowSeconds(),
): boolean {
  return proof.authTime > 0 && now - proof.authTime <= maxAgeSeconds && signsIn(proof.amr, account);
}

/**
 * The proofs this account can give, as the step-up answer names them: `password`, `password+code` (or
 * `password+recovery-code`), `passkey`, `provider:<name>` (`+code` with two-factor login on).
 */
export function proofsOf(account: AccountMethods): string[] {
  const second = account.secondFactor ? ['+code', '+recovery-code'] : [''];
  const proofs: string[] = [];
  if (account.password) proofs.push(...second.map((factor) => `password${factor}`));
  if (account.passkeys > 0) proofs.push('passkey');
  for (const provider of account.providers) proofs.push(`provider:${provider}${account.secondFactor ? '+code' : ''}`);
  return proofs;
}
