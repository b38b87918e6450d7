import { randomBytes } from 'node:crypto';
import { ConfigError } from './errors';
import { estimates, type Guessable } from './guessability';
import { capitalsChanceLog10, classChanceLog10 } from './letter-cases';
import { letterParts, structureEstimate, type WordEstimate } from './secret-structure';

// The two token secrets (JWT_SECRET, REFRESH_TOKEN_SECRET): required in production, random per process
// elsewhere. A bad value stops start-up with a message that names the variable and never the value.

const MIN_SECRET_BYTES = 32;

/**
 * Production takes only secrets that are random bytes written out (RFC 8725 §3.5: keys must not be
 * guessable; HS256 wants at least 256 bits): at least 32 bytes as base64 or base64url (43 characters
 * or more, padding aside) or as hex (64 digits or more) — what `openssl rand -base64 48` and
 * `openssl rand -hex 32` print. No test can prove randomness; these catch what people actually commit:
 * words and sentences (not the alphabet), `aaaa…` and `deadbeef…` (too few bits per character, measured
 * as the Shannon entropy of the secret's own characters), and `0123…f0123…f` (a repeated pattern: most
 * three-character runs occur more than once).
 */
const ENCODINGS = [
  { name: 'hex', alphabet: /^[0-9a-f]+$/i, minLength: 64, minBitsPerCharacter: 3 },
  { name: 'base64', alphabet: /^[A-Za-z0-9+/_-]+$/, minLength: 43, minBitsPerCharacter: 4 },
] as const;
const MIN_DISTINCT_TRIGRAMS = 0.8;

/** Shannon entropy of the string's character distribution, in bits per character. */
export function bitsPerCharacter(value: string): number {
  const counts = new Map<string, number>();
  for (const character of value) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= (count / value.length) * Math.log2(count / value.length);
  return bits;
}

/** Share of the string's three-character runs that are distinct: near 1 for random text, low for a repeated pattern. */
function distinctTrigrams(value: string): number {
  const runs = new Set<string>();
  for (let i = 0; i + 3 <= value.length; i += 1) runs.add(value.slice(i, i + 3));
  return runs.size / Math.max(1, value.length - 2);
}

/** True when `secret` reads as at least 32 random bytes in hex or base64 (see above). */
export function looksRandom(secret: string): boolean {
  const text = secret.replace(/=+$/, '');
  return ENCODINGS.some(
    (encoding) =>
      encoding.alphabet.test(text) &&
      text.length >= encoding.minLength &&
      bitsPerCharacter(text) >= encoding.minBitsPerCharacter &&
      distinctTrigrams(text) >= MIN_DISTINCT_TRIGRAMS,
  );
}

type Env = Record<string, string | undefined>;

export function readSecrets(
  env: Env,
  production: boolean,
  warnings: string[],
): { accessSecret: string; refreshSecret: string } {
  let accessSecret = env.JWT_SECRET?.trim() || undefined;
  let refreshSecret = env.REFRESH_TOKEN_SECRET?.trim() || undefined;
  if (production) {
    if (!accessSecret) throw new ConfigError('JWT_SECRET', 'is required in production');
    if (!refreshSecret) throw new ConfigError('REFRESH_TOKEN_SECRET', 'is required in production');
  } else if (!accessSecret || !refreshSecret) {
    warnings.push(
      'JWT_SECRET or REFRESH_TOKEN_SECRET is not set: using a random secret for this process only; tokens die with it',
    );
    accessSecret ??= randomBytes(48).toString('base64url');
    refreshSecret ??= randomBytes(48).toString('base64url');
  }
  for (const [name, value] of [['JWT_SECRET', accessSecret], ['REFRESH_TOKEN_SECRET', refreshSecret]] as const) {
    if (Buffer.byteLength(value) < MIN_SECRET_BYTES) throw new ConfigError(name, `must be at least ${MIN_SECRET_BYTES} bytes long`);
    if (production && !looksRandom(value)) {
      throw new ConfigError(name, 'must be at least 32 random bytes in base64 or hex in production: generate one with `openssl rand -base64 48`');
    }
  }
  if (accessSecret === refreshSecret) throw new ConfigError('REFRESH_TOKEN_SECRET', 'must differ from JWT_SECRET');
  return { accessSecret, refreshSecret };
}

/** 2^128 guesses: what a 256-bit HMAC key must at least withstand (RFC 8725 §3.5 asks for keys nobody can guess). */
export const MIN_SECRET_BITS = 128;
/**
 * log10 of the chance that random bytes written out reach a phrase share of 1 (words, names, numbers,
 * versions and separators, secret-structure.ts), scaled by the share: random text reaches share s with a
 * chance of about 10^(−11·s) (measured on 10^5 secrets of each encoding: 0.2 about 10^−2.2, 0.3 about
 * 10^−3.3, 0.4 rarer than 10^−4.4; 43 characters of base64url strays the most; `make measure-secrets`).
 */
const SHARE_CHANCE_LOG10 = -11;
/**
 * A secret is a phrase when the chance that random bytes look as much like one — its phrase share, its
 * classes of character and its capitals (letter-cases.ts), multiplied — is below 10^−8.5. The witnesses are
 * not quite independent, so the product is a score more than a probability; the bar sits halfway between
 * what was measured (`make measure-secrets`): the least likely of 6·10^5 random base64 secrets came to
 * 10^−7.8, the most likely of 1.3·10^5 generated phrases that reach 2^128 part by part to 10^−9.0.
 */
export const MAX_PHRASE_CHANCE_LOG10 = -8.5;
/** 10^8 guesses: zxcvbn's score 3, the bar for a password a user chooses (src/auth/password-strength.ts). */
const MIN_PASSWORD_GUESSES_LOG10 = 8;

export interface SecretJudgement {
  /** log2 of the guesses: the lesser of zxcvbn-ts's estimate of the whole and the part-by-part estimate (secret-structure.ts). */
  bits: number;
  /** Share of its characters in words, names, years, numbers, versions and separators. */
  guessableShare: number;
  /** log10 of the chance that random bytes look this much like a phrase (share, classes and capitals together). */
  phraseChanceLog10: number;
  guessable: boolean;
}

/** The part-by-part judgement alone (cheap: only the words go to zxcvbn-ts), in one child process for all. */
export function judgeStructure(secrets: readonly string[]): SecretJudgement[] {
  const words = [...new Set(secrets.flatMap(letterParts))];
  const wordEstimates = new Map<string, WordEstimate>(
    estimates(words.map((text) => ({ text, inputs: [] }))).map((result, index) => [words[index], { bits: result.guessesLog10 * Math.log2(10), known: result.explained || result.listed, patternLengths: result.patternLengths }]),
  );
  return secrets.map((secret) => {
    const structure = structureEstimate(secret, wordEstimates);
    return verdict(secret, structure.bits, structure.guessableShare);
  });
}

/** Judges secrets: each must reach 2^128 guesses by zxcvbn-ts's estimate of the whole and part by part, and not read as a phrase. */
export function judgeSecrets(secrets: readonly string[]): SecretJudgement[] {
  const whole = estimates(secrets.map((text) => ({ text, inputs: [] })));
  return judgeStructure(secrets).map((structure, index) => verdict(secrets[index], Math.min(structure.bits, whole[index].guessesLog10 * Math.log2(10)), structure.guessableShare));
}

function verdict(secret: string, bits: number, guessableShare: number): SecretJudgement {
  const phraseChanceLog10 = SHARE_CHANCE_LOG10 * guessableShare + classChanceLog10(secret) + capitalsChanceLog10(secret);
  return { bits, guessableShare, phraseChanceLog10, guessable: bits < MIN_SECRET_BITS || phraseChanceLog10 < MAX_PHRASE_CHANCE_LOG10 };
}

/**
 * Production only, on top of `looksRandom`: refuses secrets made of words, names, years, versions and
 * separators (`mycompanyname-production-jwt-signing-secret-2024-v1` is base64url and long, yet a short list
 * of guesses recovered it from one token), by judgeSecrets, and a guessable DEMO_USER_PASSWORD by zxcvbn-ts.
 */
export function refuseGuessable(secrets: { accessSecret: string; refreshSecret: string }, demo: { email: string; password: string } | undefined): void {
  const demoCheck = demo && { text: demo.password, inputs: [demo.email, demo.email.split('@')[0]] };
  // One child process for everything: the secrets, their words, the demo password (later calls hit the cache).
  const texts = [secrets.accessSecret, secrets.refreshSecret];
  const everything: Guessable[] = [...texts, ...texts.flatMap(letterParts)].map((text) => ({ text, inputs: [] }));
  estimates(demoCheck ? [...everything, demoCheck] : everything);
  const [access, refresh] = judgeSecrets(texts);
  for (const [name, judgement] of [['JWT_SECRET', access], ['REFRESH_TOKEN_SECRET', refresh]] as const) {
    if (judgement.guessable) throw new ConfigError(name, 'is guessable (words, names, years or patterns): generate one with `openssl rand -base64 48`');
  }
  if (!demoCheck) return;
  const [password] = estimates([demoCheck]);
  if (password.guessesLog10 < MIN_PASSWORD_GUESSES_LOG10) throw new ConfigError('DEMO_USER_PASSWORD', 'is too easy to guess: use a long passphrase of unrelated words');
}
