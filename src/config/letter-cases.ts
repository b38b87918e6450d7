// Witnesses against a phrase from its letter cases alone. The documented commands print each class of
// character in its share of the alphabet — base64 has 26 lowercase, 26 uppercase and 12 other characters of
// 64, hex 6 letters and 10 digits of 16 — and what follows a character is as random as the character. People
// write words in one spelling (far from those shares) or capitalised (a capital is followed by a lowercase
// letter nearly always). Each is a chance under random text and proves nothing alone (random text strays
// now and then); secrets.ts weighs them together with the phrase share.

interface Encoding {
  /** The class of each character, as an index into `shares`. */
  classOf(character: string): number;
  shares: readonly number[];
}

const HEX: Encoding = { classOf: (character) => (/[0-9]/.test(character) ? 1 : 0), shares: [6 / 16, 10 / 16] };
const BASE64: Encoding = {
  classOf: (character) => (/[a-z]/.test(character) ? 0 : /[A-Z]/.test(character) ? 1 : 2),
  shares: [26 / 64, 26 / 64, 12 / 64],
};

/** Hex as `openssl rand -hex` prints it (one case); anything else is read as base64 or base64url. */
const encodingOf = (text: string): Encoding => (/^(?:[0-9a-f]+|[0-9A-F]+)$/.test(text) ? HEX : BASE64);

/**
 * log10 of the chance that the encoding's random output of this length has classes at least this far from
 * their shares: Pearson's χ² of the class counts, which at these lengths follows the χ² distribution
 * closely; with two degrees of freedom (base64) its tail is e^(−χ²/2). Hex has one, for which e^(−χ²/2)
 * bounds the tail from above (erfc t ≤ e^(−t²)), so hex is never judged stranger than it is.
 */
export function classChanceLog10(secret: string): number {
  const text = secret.replace(/=+$/, '');
  if (text.length === 0) return 0;
  const encoding = encodingOf(text);
  const counts = encoding.shares.map(() => 0);
  for (const character of text) counts[encoding.classOf(character)] += 1;
  const chiSquare = encoding.shares.reduce((sum, share, index) => sum + (counts[index] - share * text.length) ** 2 / (share * text.length), 0);
  return -chiSquare / 2 / Math.LN10;
}

/**
 * log10 of the chance that at least as many of the capitals are followed by a lowercase letter, were what
 * follows each one drawn like the secret's other characters (each is lowercase with the secret's own share
 * of lowercase letters): the binomial tail, exact. Measured against the secret's own share, not base64's
 * 26/64, so that this witness does not count again what the classes already did (a secret with many
 * lowercase letters has many capitals followed by one). `FegolabsSso197QaJwtJoke…` has every capital so
 * followed. Hex has one case: no evidence.
 */
export function capitalsChanceLog10(secret: string): number {
  const text = secret.replace(/=+$/, '');
  if (encodingOf(text) === HEX) return 0;
  let capitals = 0;
  let followed = 0;
  for (let index = 0; index + 1 < text.length; index += 1) {
    if (!/[A-Z]/.test(text[index])) continue;
    capitals += 1;
    if (/[a-z]/.test(text[index + 1])) followed += 1;
  }
  if (followed === 0) return 0;
  const lowercaseShare = (text.match(/[a-z]/g) ?? []).length / text.length; // below 1: there is a capital
  return Math.log10(Math.min(1, binomialTail(capitals, followed, lowercaseShare)));
}

/** P(X ≥ k) for X ~ Binomial(n, p), 0 < p < 1, each term computed in logarithms so none underflows early. */
function binomialTail(n: number, k: number, p: number): number {
  let logChoose = 0; // log C(n, j), built up from j = 0
  let tail = 0;
  for (let j = 0; j <= n; j += 1) {
    if (j > 0) logChoose += Math.log((n - j + 1) / j);
    if (j >= k) tail += Math.exp(logChoose + j * Math.log(p) + (n - j) * Math.log(1 - p));
  }
  return tail;
}
