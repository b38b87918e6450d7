// `make measure-secrets`: how often the production secret judge (src/config/secrets.ts) refuses a random
// secret the documented commands print, and how often it lets a generated phrase through, on fresh
// randomness and samples far larger than a test run can afford. Prints the figures docs/security.md quotes;
// exits 1 when it found either mistake. SECRETS_SAMPLE (default 20000) secrets of each base64 kind and of
// phrases, a tenth of that of hex (its many distinct digit runs make the dictionary estimate slow).
import { judgeStructure, looksRandom, MAX_PHRASE_CHANCE_LOG10, MIN_SECRET_BITS, type SecretJudgement } from '../src/config/secrets';
import { phraseMaker, randomSecretKinds } from '../test/support/made-up-secrets';
import { cryptoRandom } from '../test/support/seeded-random';

const SAMPLE = Number(process.env.SECRETS_SAMPLE ?? 20_000);
/** The dictionary estimate runs in one child process per call, bounded in time: judge in slices. */
const SLICE = 5_000;

function judgeAll(secrets: string[]): SecretJudgement[] {
  const judged: SecretJudgement[] = [];
  for (let start = 0; start < secrets.length; start += SLICE) judged.push(...judgeStructure(secrets.slice(start, start + SLICE)));
  return judged;
}

const chance = (value: number) => `10^${value.toFixed(1)}`;
let mistakes = 0;
console.log(`a secret is a phrase below ${chance(MAX_PHRASE_CHANCE_LOG10)} as random, or below 2^${MIN_SECRET_BITS} guesses`);

for (const [kind, make] of Object.entries(randomSecretKinds(cryptoRandom))) {
  const started = Date.now();
  const secrets = Array.from({ length: /^hex/i.test(kind) ? Math.ceil(SAMPLE / 10) : SAMPLE }, make);
  const judged = judgeAll(secrets);
  const refused = secrets.filter((_secret, index) => judged[index].guessable);
  mistakes += refused.length;
  const shares = judged.map((judgement) => judgement.guessableShare);
  console.log(
    `${kind.padEnd(13)} ${String(secrets.length).padStart(7)} random: refused ${refused.length}; phrase share max ${Math.max(...shares).toFixed(3)};` +
      ` least likely as random ${chance(Math.min(...judged.map((judgement) => judgement.phraseChanceLog10)))}; fewest bits ${Math.min(...judged.map((judgement) => judgement.bits)).toFixed(0)}` +
      ` (${((Date.now() - started) / 1000).toFixed(0)} s)${refused.length > 0 ? `\n  refused: ${refused.slice(0, 5).join(' ')}` : ''}`,
  );
}

const madeUpSecret = phraseMaker(cryptoRandom);
const phrases: string[] = [];
let made = 0;
while (phrases.length < SAMPLE) {
  const secret = madeUpSecret();
  made += 1;
  if (looksRandom(secret)) phrases.push(secret);
}
const judged = judgeAll(phrases);
const accepted = phrases.filter((_secret, index) => !judged[index].guessable);
mistakes += accepted.length;
const longShot = judged.filter((judgement) => judgement.bits >= MIN_SECRET_BITS);
console.log(
  `phrases       ${String(phrases.length).padStart(7)} (of ${made} made; the rest are not base64 or hex): accepted ${accepted.length};` +
    ` ${longShot.length} reach 2^${MIN_SECRET_BITS} part by part, refused as phrases; most likely as random ${chance(Math.max(...longShot.map((judgement) => judgement.phraseChanceLog10)))}` +
    `${accepted.length > 0 ? `\n  accepted: ${accepted.slice(0, 5).join(' ')}` : ''}`,
);
process.exitCode = mistakes > 0 ? 1 : 0;
