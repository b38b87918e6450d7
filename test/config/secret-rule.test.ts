import { randomBytes, randomInt } from 'node:crypto';
import { loadConfig } from '../../src/config/config';
import { secretRefusal, secretWords, wordCover } from '../../src/config/secret-rule';
import { ALPHABETS, refusalBound } from '../../scripts/secret-rule-bound';
import { configError } from '../support/config-error';

// The production secret rule (src/config/secret-rule.ts): a computed bound says it refuses a random secret
// with a chance below 10^-12; a million fresh ones show it in practice; what people make of words and jargon is
// refused.

const PRODUCTION = {
  NODE_ENV: 'production',
  USER_STORE: 'database',
  JWT_SECRET: randomBytes(48).toString('base64'),
  REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64url'),
};

describe('random secrets', () => {
  const alphabets = ALPHABETS.map((alphabet) => [alphabet.name, alphabet] as const);
  it.each(alphabets)("the bound for %s, from the rule's word and jargon lists, is below 10^-12", (_name, alphabet) => {
    expect(refusalBound(alphabet).total).toBeLessThan(1e-12);
  });

  it('accepts 10^6 fresh secrets of 32 and 48 bytes in hex, base64 and base64url', () => {
    const words = secretWords();
    const kinds = [32, 48].flatMap((bytes) =>
      (['hex', 'base64', 'base64url'] as const).map((encoding) => [bytes, encoding] as const),
    );
    const refused: string[] = [];
    let pool = randomBytes(0);
    for (let i = 0; i < 1_000_000; i += 1) {
      const [bytes, encoding] = kinds[i % kinds.length];
      if (pool.length < bytes) pool = randomBytes(1 << 20); // drawn a megabyte at a time: one call per secret costs more than the rule
      const secret = pool.subarray(0, bytes).toString(encoding);
      pool = pool.subarray(bytes);
      if (secretRefusal(secret, words) !== undefined) refused.push(`${encoding} ${bytes}: ${secret}`);
    }
    expect(refused).toEqual([]);
  }, 120_000);

  it('accepts upper-case hex and padded base64, and what `npm run secret` prints', () => {
    expect(secretRefusal(randomBytes(32).toString('hex').toUpperCase())).toBeUndefined();
    expect(secretRefusal(randomBytes(32).toString('base64'))).toBeUndefined(); // 44 characters, one `=`
    expect(loadConfig(PRODUCTION).env).toBe('production');
  });
});

/** A passphrase of `count` diceware words of four letters or more, joined by `separator`. */
function passphrase(count: number, separator: string): string {
  const list = [...secretWords()].filter((word) => word.length <= 8);
  return Array.from({ length: count }, () => list[randomInt(list.length)]).join(separator);
}

describe('secrets people make', () => {
  it.each([
    ["the docs' company phrase", 'mycompanyname-production-jwt-signing-secret-2024-v1'],
    ['a longer company phrase', 'globex-international-staging-refresh-token-secret-2023-v3'],
    ['a made-up company in camelCase', 'InitechCorporationProductionSigningKey2025Final'],
    ['upper case with underscores', 'ACME_CORPORATION_PRODUCTION_REFRESH_TOKEN_SECRET_V2'],
    ['a passphrase with hyphens', 'correct-horse-battery-staple-lantern-harbour'],
    ['a passphrase with underscores', 'lantern_harbour_quiet_seven_orange_window_blue'],
    ['one repeated character', 'a'.repeat(64)],
    ['a repeated hex pattern', '0123456789abcdef'.repeat(4)],
    ['hex with few digits', 'deadbeef'.repeat(8)],
    ['a short repeated pattern', 'abcd'.repeat(16)],
    ["RFC 7515's sample key", 'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow'],
    ['the base64 alphabet', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'],
    ['too short: 24 bytes in base64', randomBytes(24).toString('base64')],
    ['too short: 31 bytes in hex', randomBytes(31).toString('hex')],
    ['a sentence (not base64)', 'this is my very secret jwt key 2024, do not share'],
    ['a password-manager string (not base64 or hex)', 'S3cure!Pa55word#With$Symbols%And^More&Length*'],
  ])('refuses %s, naming the variable and not the value', (_case, secret) => {
    for (const name of ['JWT_SECRET', 'REFRESH_TOKEN_SECRET'] as const) {
      const error = configError({ ...PRODUCTION, [name]: secret });
      expect(error.variable).toBe(name);
      expect(error.message).toMatch(/npm run secret/);
      expect(error.message).not.toContain(secret);
    }
  });

  it.each(['-', '_'])('refuses fresh passphrases of six to ten words joined by %s (200 of each)', (separator) => {
    for (let i = 0; i < 200; i += 1) {
      const secret = passphrase(6 + (i % 5), separator);
      if (secret.length >= 43) expect([secret, secretRefusal(secret)]).toEqual([secret, 'is made of words']);
    }
  });

  it('refuses MFA_ENCRYPTION_KEY by the same rule', () => {
    const error = configError({
      ...PRODUCTION,
      MFA_ENCRYPTION_KEY: 'globex-international-staging-mfa-sealing-key-2023',
    });
    expect(error.variable).toBe('MFA_ENCRYPTION_KEY');
    expect(error.message).toMatch(/made of words/);
  });

  it('counts words spelled as people write them, with the separator after each, never a word in mixed case', () => {
    expect(wordCover('company-Name-PRODUCTION')).toBe('company-Name-PRODUCTION'.length);
    expect(wordCover('cOmPaNy')).toBe(0);
  });

  it('applies only in production (outside it, length and difference still apply)', () => {
    expect(loadConfig({ JWT_SECRET: 'a'.repeat(32), REFRESH_TOKEN_SECRET: 'b'.repeat(32) }).env).toBe('development');
  });
});

describe('secrets people make of jargon', () => {
  it.each([
    ["a company's signing key", 'acmecorp-prod-jwt-signing-key-2025-v2-do-not-share'],
    ['a key named for its region and date', 'jwt_secret_acme_prod_2025_01_01_v2_main_eu_west_1_key'],
    ['the same in upper case', 'ACMECORP_PROD_JWT_KEY_2025_V2_EU_WEST_1_DO_NOT_SHARE'],
    ['the same Capitalised', 'Acmecorp-Prod-Jwt-Key-2025-V2-Eu-West-1-Do-Not-Share'],
    ['an algorithm and a full date', 'acmecorp-api-hmac-sha256-key-prd-2024-12-31-v3-xyz'],
    ['single sign-on in a region', 'initech_uat_sso_oidc_client_key_v10_2024_us_east_1'],
    ['a year and month', 'globex-stg-auth-jwt-hs256-key-v2-2023-06-eu-west-2'],
    ['jargon with hardly a word', 'acmecorp-dev-api-key-v1-2025-01-qa-uat-stg-prd-env-9x'],
  ])('refuses %s', (_case, secret) => {
    expect(secret.length).toBeGreaterThanOrEqual(43); // long enough in base64url form that only its words refuse it
    expect(secretRefusal(secret)).toBe('is made of words');
    expect(configError({ ...PRODUCTION, JWT_SECRET: secret }).message).toMatch(/made of words/);
  });

  it('counts jargon only as a whole token between separators or the ends, spelled as people write words', () => {
    expect(wordCover('jwt-KEY-V2')).toBe('jwt-KEY-V2'.length);
    expect(wordCover('xjwt-keyx-v2x')).toBe(0);
    expect(wordCover('jWt-')).toBe(0);
  });

  it('counts a month and a day only right after a year', () => {
    expect(wordCover('2025-01-31')).toBe('2025-01-31'.length);
    expect(wordCover('2025_06')).toBe('2025_06'.length);
    expect(wordCover('x-01-31')).toBe(0);
    expect(wordCover('2025-01-01-01')).toBe('2025-01-01-'.length); // a date has two parts after the year
  });

  it('accepts a random key with a jargon label in front', () => {
    expect(secretRefusal(`prod_jwt_key_v2_${randomBytes(32).toString('base64url')}`)).toBeUndefined();
  });
});
