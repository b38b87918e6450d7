import { loadConfig } from '../../src/config/config';
import { capitalsChanceLog10, classChanceLog10 } from '../../src/config/letter-cases';
import { judgeSecrets, judgeStructure, looksRandom, MIN_SECRET_BITS } from '../../src/config/secrets';
import { configError } from '../support/config-error';
import { phraseMaker, randomSecretKinds } from '../support/made-up-secrets';
import { seededRandom } from '../support/seeded-random';

// Production secrets are judged by a principle, not a list: at least 2^128 guesses when words, names, years,
// versions and separators are counted as the guesses they are, and not reading as a phrase (the share of such
// parts and the letter cases, weighed as chances under random bytes). Checked on secrets generated the way
// people make them (random picks of words, company-like names, first and last names, purposes, years,
// versions, separators and spellings, at any length), and on random secrets the documented commands print,
// which must all pass.

// Drawn from a seeded stream: every run judges the same sample, so a run cannot fail by chance; the rates
// on fresh randomness and large samples are what `make measure-secrets` prints (docs/security.md).
const madeUpSecret = phraseMaker(seededRandom('made-up secrets'));
const randomKinds = randomSecretKinds(seededRandom('random secrets'));

describe('production secrets judged by principle', () => {
  it('refuses 1,000 generated phrases of words, names, years, versions and separators that pass for random bytes, whatever their length', () => {
    // Production asks looksRandom first: a phrase with a '.' or ':' in it (a version, a separator) is not
    // base64 or hex and never reaches the judge of its structure, which is what is tested here.
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
      const error = configError({ NODE_ENV: 'production', USER_STORE: 'database', JWT_SECRET: secret, REFRESH_TOKEN_SECRET: randomKinds['base64 48']() });
      expect(error.variable).toBe('JWT_SECRET');
      expect(error.message).not.toContain(secret);
    }
  }, 120_000);

  it('passes every random secret the documented commands print (200 of each encoding, part by part)', () => {
    for (const make of Object.values(randomKinds)) {
      const secrets = Array.from({ length: 200 }, make);
      const judged = judgeStructure(secrets);
      expect(secrets.filter((_secret, index) => judged[index].guessable)).toEqual([]);
      expect(Math.min(...judged.map((judgement) => judgement.bits))).toBeGreaterThanOrEqual(MIN_SECRET_BITS);
    }
  }, 120_000);

  it('passes random secrets by the whole estimate too (zxcvbn-ts and part by part), and starts with them', () => {
    const secrets = [randomKinds['hex 32'](), randomKinds['base64 32'](), randomKinds['base64url 48'](), randomKinds['base64url 32']()];
    expect(judgeSecrets(secrets).filter((judgement) => judgement.guessable)).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'production', USER_STORE: 'database', JWT_SECRET: secrets[0], REFRESH_TOKEN_SECRET: secrets[1] }).env).toBe('production');
  }, 120_000);

  it('weighs the phrase share with the letter cases: random secrets that stray in one are passed, phrases that stray in all are refused', () => {
    // Random base64url that the share alone refused (CI runs: a camelCase of listed 3-letter words, a
    // version and one letter between two '-'), random base64 that the cases refused when capitals were
    // weighed against base64's 26/64 rather than the secret's own lowercase share, and phrases the share
    // alone let through (one spelling; capitals).
    const random = ['vrRLoR1qcadV8RabLICpuCaoVuePRsKoPVeikACl7Qc', 'X6YedMraryeV0PAKDQsv6x1Lost3Ep3v9FlZco-h-3E', 'rFt3mtddDi2tXaTksJyRiIgbHebwvdkPuhBfsu9p81xHxlVaqxx+MtZukwvwWu7v'];
    const phrases = ['kovumlucorp892forresterv15web488apiarmsv10wraith', 'FegolabsSso197QaJwtJokeAccessAuth94Clancy558'];
    const judged = judgeStructure([...random, ...phrases]);
    expect(judged.map((judgement) => judgement.guessable)).toEqual([false, false, false, true, true]);
    expect(Math.min(...judged.slice(0, 2).map((judgement) => judgement.guessableShare))).toBeGreaterThanOrEqual(0.4);
    expect(Math.min(...judged.slice(3).map((judgement) => judgement.bits))).toBeGreaterThanOrEqual(MIN_SECRET_BITS); // refused as phrases, not for their bits
  }, 60_000);

  it('reads letter cases as chances under the encoding that printed the secret', () => {
    expect(classChanceLog10('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_')).toBeCloseTo(0, 5); // base64url's own shares
    expect(classChanceLog10('0123456789abcdef'.repeat(4))).toBeCloseTo(0, 5); // hex's own shares
    expect(classChanceLog10('mycompanyname-production-jwt-signing-secret-2024-v1')).toBeLessThan(-6); // one spelling
    expect(classChanceLog10('deadbeefcafebabedeadbeefcafebabe0123456789abcdef')).toBeLessThan(-4); // hex, nearly all letters
    expect(capitalsChanceLog10('AbCdEfGhIjKlMnOpQrStUvWxYz')).toBeCloseTo(13 * Math.log10(1 / 2), 5); // every capital followed by a lowercase letter, half of them lowercase
    expect(capitalsChanceLog10('AbcdefghijklmnoP')).toBeCloseTo(Math.log10(14 / 16), 5); // one capital, with lowercase all around: next to no evidence
    expect(capitalsChanceLog10('ABCDEFGHIJKLMNOPQRSTUVWXYZ')).toBe(0); // none is: no evidence
    expect(capitalsChanceLog10('0123456789abcdef'.repeat(4))).toBe(0); // hex has one case
  });
});
