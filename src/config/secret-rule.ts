import type * as LanguageCommon from '@zxcvbn-ts/language-common';
import type * as LanguageEn from '@zxcvbn-ts/language-en';

// The production rule for JWT_SECRET, REFRESH_TOKEN_SECRET and MFA_ENCRYPTION_KEY: random bytes written out
// (RFC 8725 §3.5: an HMAC key nobody can guess; HS256 wants 256 bits). It checks form and a few shapes people
// make, never statistics: each check fires on the output of a random generator with a chance bounded in
// docs/security.md (all together below 10^-13 for 32 bytes or more in hex, base64 or base64url), and
// test/config/secret-rule.test.ts recomputes that bound from the word and jargon lists below.

export const MIN_SECRET_BYTES = 32;
/** Hex needs 64 digits; base64 and base64url 43 characters (padding aside): both are 32 bytes decoded. */
const MIN_HEX_DIGITS = 2 * MIN_SECRET_BYTES;
const MIN_BASE64_CHARACTERS = Math.ceil((MIN_SECRET_BYTES * 8) / 6);
/** Fewer distinct characters than this is `aaaa…`, `deadbeef…`: random text of the minimum length has it with a chance below 10^-18. */
const MIN_DISTINCT = { hex: 8, base64: 12 } as const;
/** A word counts from this many letters on. */
export const MIN_WORD_LETTERS = 4;
/** Words and jargon (with a separator after each) covering this share of the secret make it a phrase. */
export const MAX_WORD_SHARE = 0.6;
/** What people put between words; in the base64url alphabet only `-` and `_` (the bound counts them). */
export const SEPARATORS = new Set(['-', '_', '.']);

/** Sample keys published where people copy from: RFC 7515 A.1's HS256 key, the alphabets in order. */
const KNOWN_SAMPLES = new Set([
  'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
]);

/**
 * The jargon of hand-made secrets that the dictionary lacks (it has `prod`, `test`, `main`, `west`): what the
 * key is for, its algorithm, the environment, the region. Two or three characters turn up by chance in random
 * text, so jargon counts only as a whole token, between separators or the secret's ends, and the list stays
 * short.
 */
const JARGON_NAMES = [
  ...['jwt', 'api', 'key', 'app', 'auth', 'oauth', 'oidc', 'sso', 'mfa', 'otp', 'tls', 'ssl'],
  ...['hmac', 'sha', 'rsa', 'aes', 'hs256', 'hs384', 'hs512', 'sha256', 'sha512'],
  ...['dev', 'prd', 'stg', 'uat', 'qa', 'env', 'eu', 'us'],
];
/** Version tags: `v` and one to three digits, leading zeros included (`v2`, `v01`, `v100`). */
const VERSIONS = [1, 2, 3].flatMap((digits) =>
  Array.from({ length: 10 ** digits }, (_, n) => `v${String(n).padStart(digits, '0')}`),
);
/** A whole token of these counts like a word. */
export const JARGON: ReadonlySet<string> = new Set([...JARGON_NAMES, ...VERSIONS]);
/** Years 1900–2099: jargon that may start a date. */
export const YEARS: ReadonlySet<string> = new Set(Array.from({ length: 200 }, (_, i) => String(1900 + i)));
/**
 * Months and days, `01` to `31`: jargon only right after a year or a date part and its separator (`2025-01-31`,
 * two at most), for two digits between separators are common in random base64url text.
 */
export const DATE_PARTS: ReadonlySet<string> = new Set(
  Array.from({ length: 31 }, (_, i) => String(i + 1).padStart(2, '0')),
);
const LONGEST_JARGON = Math.max(...[...JARGON, ...YEARS].map((token) => token.length));

let dictionary: ReadonlySet<string> | undefined;

/** English common words, first names and the diceware list, 4+ letters, lowercase (~53,000; the password policy's lists). */
export function secretWords(): ReadonlySet<string> {
  if (!dictionary) {
    /* eslint-disable @typescript-eslint/no-require-imports -- only a production start (and the tests) need them */
    const en = (require('@zxcvbn-ts/language-en') as typeof LanguageEn).dictionary;
    const common = (require('@zxcvbn-ts/language-common') as typeof LanguageCommon).dictionary;
    /* eslint-enable @typescript-eslint/no-require-imports */
    const lists = [en['commonWords-en'], en['firstnames-en'], common['diceware-common']] as unknown as string[][];
    dictionary = new Set(
      lists
        .flat()
        .map((word) => String(word).toLowerCase())
        .filter((word) => /^[a-z]+$/.test(word) && word.length >= MIN_WORD_LETTERS),
    );
  }
  return dictionary;
}

const LONGEST_WORD = 20;
const isLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;

/** How people write a word: lowercase, UPPERCASE or Capitalised (random text mixes cases within a word). */
export function spellings(lower: string): string[] {
  return [...new Set([lower, lower.toUpperCase(), lower.charAt(0).toUpperCase() + lower.slice(1)])];
}
const spelledAsWord = (text: string) => spellings(text.toLowerCase()).includes(text);

/** Index of four lowercase letters in a 26^4 table, or -1 when one is no letter. */
function fourLetters(lower: string, at: number): number {
  let index = 0;
  for (let i = at; i < at + MIN_WORD_LETTERS; i += 1) {
    const letter = lower.charCodeAt(i) - 0x61;
    if (letter < 0 || letter > 25) return -1;
    index = index * 26 + letter;
  }
  return index;
}

/** The first four letters of every word, as a table: one lookup rules out most places in random text. */
const prefixesOf = new WeakMap<ReadonlySet<string>, Uint8Array>();
function prefixes(words: ReadonlySet<string>): Uint8Array {
  let table = prefixesOf.get(words);
  if (!table) {
    table = new Uint8Array(26 ** MIN_WORD_LETTERS);
    for (const word of words) table[fourLetters(word, 0)] = 1;
    prefixesOf.set(words, table);
  }
  return table;
}

/** Length of the longest word at `at`, spelled as people write it, or 0. At most 17 set lookups. */
function wordAt(secret: string, lower: string, at: number, words: ReadonlySet<string>, starts: Uint8Array): number {
  if (at > secret.length - MIN_WORD_LETTERS) return 0;
  const start = fourLetters(lower, at);
  if (start < 0 || starts[start] !== 1) return 0;
  let run = at;
  while (run < secret.length && run - at < LONGEST_WORD && isLetter(secret.charCodeAt(run))) run += 1;
  for (let end = run; end - at >= MIN_WORD_LETTERS; end -= 1) {
    if (words.has(lower.slice(at, end)) && spelledAsWord(secret.slice(at, end))) return end - at;
  }
  return 0;
}

/** The whole token at `at` (up to the next separator or the end), lowercase, when it is jargon; else ''. */
function jargonAt(secret: string, lower: string, at: number, inDate: boolean): string {
  if (at > 0 && !SEPARATORS.has(secret[at - 1])) return '';
  let end = at;
  while (end < secret.length && !SEPARATORS.has(secret[end])) {
    end += 1;
    if (end - at > LONGEST_JARGON) return '';
  }
  const token = lower.slice(at, end);
  const known = JARGON.has(token) || YEARS.has(token) || (inDate && DATE_PARTS.has(token));
  return known && spelledAsWord(secret.slice(at, end)) ? token : '';
}

/**
 * Characters covered by words and jargon, left to right, whole jargon tokens first, then the longest word, each
 * with the separator after it; they never overlap. Two lookups a place where no token or word starts.
 */
export function wordCover(secret: string, words: ReadonlySet<string> = secretWords()): number {
  const lower = secret.toLowerCase();
  const starts = prefixes(words);
  let covered = 0;
  let dateParts = 0; // how many date parts may follow: two after a year, one after a month
  let i = 0;
  while (i < secret.length) {
    const token = jargonAt(secret, lower, i, dateParts > 0);
    let found = token.length || wordAt(secret, lower, i, words, starts);
    if (found === 0) {
      dateParts = 0;
      i += 1;
      continue;
    }
    dateParts = YEARS.has(token) ? 2 : DATE_PARTS.has(token) ? dateParts - 1 : 0;
    i += found;
    if (SEPARATORS.has(secret[i])) {
      found += 1;
      i += 1;
    }
    covered += found;
  }
  return covered;
}

/** True when the secret is one shorter string repeated (`0123456789abcdef` four times). */
function periodic(text: string): boolean {
  for (let period = 1; period <= text.length / 2; period += 1) {
    let i = period;
    while (i < text.length && text[i] === text[i - period]) i += 1;
    if (i === text.length) return true;
  }
  return false;
}

/** Why production refuses this secret (said without the value), or undefined when it takes it. */
export function secretRefusal(secret: string, words?: ReadonlySet<string>): string | undefined {
  const text = secret.replace(/={1,2}$/, '');
  const form = /^[0-9a-f]+$/i.test(text)
    ? 'hex'
    : /^[A-Za-z0-9+/]+$/.test(text) || /^[A-Za-z0-9_-]+$/.test(text)
      ? 'base64'
      : undefined;
  if (!form) return 'must be hex, base64 or base64url';
  if (text.length < (form === 'hex' ? MIN_HEX_DIGITS : MIN_BASE64_CHARACTERS))
    return `must be at least ${MIN_SECRET_BYTES} bytes written out (${form === 'hex' ? MIN_HEX_DIGITS : MIN_BASE64_CHARACTERS} ${form === 'hex' ? 'hex digits' : 'base64 characters'})`;
  if (KNOWN_SAMPLES.has(text) || KNOWN_SAMPLES.has(secret)) return 'is a published sample value';
  if (new Set(text).size < MIN_DISTINCT[form] || periodic(text)) return 'is a repeated pattern';
  if (wordCover(text, words) >= MAX_WORD_SHARE * text.length) return 'is made of words';
  return undefined;
}
