import { randomBytes, randomInt } from 'node:crypto';
import { dictionary as en } from '@zxcvbn-ts/language-en';
import { loadConfig } from '../../src/config/config';
import { judgeSecrets, judgeStructure, looksRandom, MIN_SECRET_BITS } from '../../src/config/secrets';
import { configError } from '../support/config-error';

// Production secrets are judged by a principle, not a list: at least 2^128 guesses when words, names, years,
// versions and separators are counted as the guesses they are, and not mostly made of such parts. Checked
// on secrets generated the way people make them (random picks of words, company-like names, first and last
// names, purposes, years, versions, separators and spellings, at any length), and on random secrets the
// documented commands print, which must all pass.

const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)];
const between = (low: number, high: number) => low + randomInt(high - low + 1);

const COMMON_WORDS = en['commonWords-en'].slice(0, 20_000).filter((word) => /^[a-z]{3,12}$/.test(word));
const FIRST_NAMES = en['firstnames-en'].filter((name) => /^[a-z]{3,12}$/.test(name));
const LAST_NAMES = en['lastnames-en'].slice(0, 20_000).filter((name) => /^[a-z]{3,12}$/.test(name));
const PURPOSES = ['prod', 'production', 'staging', 'stage', 'dev', 'test', 'qa', 'jwt', 'api', 'key', 'secret', 'signing', 'refresh', 'token', 'hmac', 'auth', 'access', 'session', 'internal', 'service', 'app', 'backend', 'platform', 'web', 'sso', 'iam'];
const SUFFIXES = ['', '', 'corp', 'inc', 'labs', 'tech', 'soft', 'systems', 'group', 'ltd', 'co'];
const CONSONANTS = 'bcdfghjklmnprstvwxz';
const VOWELS = 'aeiou';

/** A made-up company name of two or three syllables (`globex`, `initech`, `vandelay`), sometimes with a suffix. */
function companyName(): string {
  let name = '';
  for (let syllable = between(2, 3); syllable > 0; syllable -= 1) name += pick([...CONSONANTS]) + pick([...VOWELS]) + (randomInt(3) === 0 ? pick([...CONSONANTS]) : '');
  return name + pick(SUFFIXES);
}

function wordPart(): string {
  switch (randomInt(4)) {
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
  switch (randomInt(4)) {
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
    parts.push(randomInt(4) === 0 && !numeric ? numberPart() : wordPart());
  }
  if (randomInt(2) === 0) parts.push(String(between(1990, 2035)));
  const camel = randomInt(4) === 0;
  const separator = pick(['-', '_', '.', ':', '']);
  const style = camel ? 2 : randomInt(3);
  let secret = parts.map((part) => spell(part, style)).join(camel ? '' : separator);
  while (secret.length < 32) secret += (camel ? '' : separator) + spell(wordPart(), style);
  return secret;
}

describe('production secrets judged by principle', () => {
  it('refuses 1,000 generated phrases of words, names, years, versions and separators that pass for random bytes, whatever their length', () => {
    // Production asks looksRandom first: a phrase with a '.' or ':' in it (a version, a separator) is not
    // base64 or hex and never reaches the judge of its structure, which is what is tested here. (Judged alone,
    // about 1 in 20,000 of those passes it: a made-up company name reads as random letters.)
    const secrets: string[] = [];
    let made = 0;
    while (secrets.length < 1000 && made < 10_000) {
      const secret = madeUpSecret();
      made += 1;
      if (looksRandom(secret)) secrets.push(secret);
    }
    expect(secrets).toHaveLength(1000);
    const judged = judgeStructure(secrets);
    const accepted = secrets.filter((_secret, index) => !judged[index].guessable);
    expect(accepted).toEqual([]);
    expect(Math.max(...secrets.map((secret) => secret.length))).toBeGreaterThan(80); // long ones were among them
    expect(new Set(secrets.map((secret) => /[-_]/.exec(secret)?.[0] ?? 'none'))).toEqual(new Set(['-', '_', 'none'])); // every base64url separator, and none
  }, 120_000);

  it('refuses the secrets named in the review, and generated ones through the configuration itself, naming the variable only', () => {
    const named = ['mycompanyname-production-jwt-signing-secret-2024-v1', 'globex-international-staging-refresh-token-secret-2023-v3', 'acme-corp-prod-api-key-2025-v2-rotation-2025', 'AcmeCorpProdApiKey2025V2SigningSecretForJwt'];
    for (const secret of [...named, ...Array.from({ length: 4 }, madeUpSecret)]) {
      const error = configError({ NODE_ENV: 'production', USER_STORE: 'database', JWT_SECRET: secret, REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64') });
      expect(error.variable).toBe('JWT_SECRET');
      expect(error.message).not.toContain(secret);
    }
  }, 120_000);

  it('passes every random secret the documented commands print (200 of each encoding, part by part)', () => {
    const kinds = [
      () => randomBytes(32).toString('hex'),
      () => randomBytes(32).toString('hex').toUpperCase(),
      () => randomBytes(32).toString('base64'),
      () => randomBytes(48).toString('base64'),
      () => randomBytes(32).toString('base64url'),
      () => randomBytes(48).toString('base64url'),
    ];
    for (const make of kinds) {
      const secrets = Array.from({ length: 200 }, make);
      const judged = judgeStructure(secrets);
      expect(secrets.filter((_secret, index) => judged[index].guessable)).toEqual([]);
      expect(Math.min(...judged.map((judgement) => judgement.bits))).toBeGreaterThanOrEqual(MIN_SECRET_BITS);
    }
  }, 120_000);

  it('passes random secrets by the whole estimate too (zxcvbn-ts and part by part), and starts with them', () => {
    const secrets = [randomBytes(32).toString('hex'), randomBytes(32).toString('base64'), randomBytes(48).toString('base64url'), randomBytes(32).toString('base64url')];
    expect(judgeSecrets(secrets).filter((judgement) => judgement.guessable)).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'production', USER_STORE: 'database', JWT_SECRET: secrets[0], REFRESH_TOKEN_SECRET: secrets[1] }).env).toBe('production');
  }, 120_000);
});
