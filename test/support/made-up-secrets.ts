import { dictionary as en } from '@zxcvbn-ts/language-en';
import type { RandomSource } from './seeded-random';

// Secrets as people make them and as the documented commands print them, for the tests of the production
// secret judge (test/config/secret-principle.test.ts, drawn from a seeded stream so every run judges the
// same sample) and for `make measure-secrets` (fresh randomness, large samples: the rates the tests cannot
// afford to find).

/** What `openssl rand -hex 32`, `-base64 32|48` and Node's base64url print, by name. */
export function randomSecretKinds(random: RandomSource): Record<string, () => string> {
  return {
    'hex 32': () => random.bytes(32).toString('hex'),
    'HEX 32': () => random.bytes(32).toString('hex').toUpperCase(),
    'base64 32': () => random.bytes(32).toString('base64'),
    'base64 48': () => random.bytes(48).toString('base64'),
    'base64url 32': () => random.bytes(32).toString('base64url'),
    'base64url 48': () => random.bytes(48).toString('base64url'),
  };
}

const COMMON_WORDS = en['commonWords-en'].slice(0, 20_000).filter((word) => /^[a-z]{3,12}$/.test(word));
const FIRST_NAMES = en['firstnames-en'].filter((name) => /^[a-z]{3,12}$/.test(name));
const LAST_NAMES = en['lastnames-en'].slice(0, 20_000).filter((name) => /^[a-z]{3,12}$/.test(name));
const PURPOSES = ['prod', 'production', 'staging', 'stage', 'dev', 'test', 'qa', 'jwt', 'api', 'key', 'secret', 'signing', 'refresh', 'token', 'hmac', 'auth', 'access', 'session', 'internal', 'service', 'app', 'backend', 'platform', 'web', 'sso', 'iam'];
const SUFFIXES = ['', '', 'corp', 'inc', 'labs', 'tech', 'soft', 'systems', 'group', 'ltd', 'co'];
const CONSONANTS = 'bcdfghjklmnprstvwxz';
const VOWELS = 'aeiou';

/** Makes secrets as people make them, from `random`'s draws. */
export function phraseMaker(random: RandomSource): () => string {
  const pick = <T>(list: readonly T[]): T => list[random.int(list.length)];
  const between = (low: number, high: number) => low + random.int(high - low + 1);

  /** A made-up company name of two or three syllables (`globex`, `initech`, `vandelay`), sometimes with a suffix. */
  function companyName(): string {
    let name = '';
    for (let syllable = between(2, 3); syllable > 0; syllable -= 1) name += pick([...CONSONANTS]) + pick([...VOWELS]) + (random.int(3) === 0 ? pick([...CONSONANTS]) : '');
    return name + pick(SUFFIXES);
  }

  function wordPart(): string {
    switch (random.int(4)) {
      case 0:
        return pick(COMMON_WORDS);
      case 1:
        return pick(FIRST_NAMES);
      case 2:
        return pick(LAST_NAMES);
      default:
        return pick(PURPOSES);
    }
  }

  function numberPart(): string {
    switch (random.int(4)) {
      case 0:
        return String(between(1990, 2035));
      case 1:
        return `v${between(1, 20)}`;
      case 2:
        return `v${between(1, 9)}.${between(0, 12)}`;
      default:
        return String(between(1, 999));
    }
  }

  const spell = (word: string, style: number) => (style === 0 ? word : style === 1 ? word.toUpperCase() : word[0].toUpperCase() + word.slice(1));

  /** A secret as people make one: a company name, 2 to 14 more parts (words, names, purposes, numbers), one separator (or none, or camelCase), one spelling. */
  function madeUpSecret(): string {
    const parts = [companyName()];
    for (let count = between(2, 13); count > 0; count -= 1) {
      // A number after a number only with a separator between: run together they are one number (`1756862002`).
      const numeric = /\d$/.test(parts[parts.length - 1]);
      parts.push(random.int(4) === 0 && !numeric ? numberPart() : wordPart());
    }
    if (random.int(2) === 0) parts.push(String(between(1990, 2035)));
    const camel = random.int(4) === 0;
    const separator = pick(['-', '_', '.', ':', '']);
    const style = camel ? 2 : random.int(3);
    let secret = parts.map((part) => spell(part, style)).join(camel ? '' : separator);
    while (secret.length < 32) secret += (camel ? '' : separator) + spell(wordPart(), style);
    return secret;
  }

  return madeUpSecret;
}
