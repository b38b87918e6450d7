import { MAX_WORD_SHARE, MIN_WORD_LETTERS, secretWords } from '../src/config/secret-rule';

// An upper bound on the chance that src/config/secret-rule.ts refuses a secret a random generator printed
// (32 bytes or more in hex, base64 or base64url), computed from the rule's own word list: a union bound over
// its checks, the arithmetic docs/security.md writes out. `npx tsx scripts/secret-rule-bound.ts` prints it;
// test/config/secret-rule.test.ts holds it below 10^-12.

interface Alphabet {
  name: string;
  size: number;
  /** The letters a word may use in this alphabet (hex: a-f). */
  letters: RegExp;
  /** Spellings of a word random text of this alphabet can take (base64: lower, UPPER, Capitalised; hex prints one case). */
  spellings: number;
  /** Chance that one character is a separator the rule counts (base64url: `-` or `_`). */
  separator: number;
  /** Shortest form of 32 bytes. */
  minLength: number;
  /** How much likelier any one string is than under uniform characters: base64's last character may carry only 2 bits (×16). */
  bias: number;
  minDistinct: number;
}

export const ALPHABETS: Alphabet[] = [
  { name: 'base64/base64url', size: 64, letters: /^[a-z]+$/, spellings: 3, separator: 2 / 64, minLength: 43, bias: 16, minDistinct: 12 },
  { name: 'hex', size: 16, letters: /^[a-f]+$/, spellings: 1, separator: 0, minLength: 64, bias: 1, minDistinct: 8 },
];

/** Longest length whose word bound is computed exactly; beyond it the generating-function bound, which shrinks with length. */
const EXACT_UP_TO = 160;

function log10Binomial(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i += 1) sum += Math.log10(n - k + i) - Math.log10(i);
  return sum;
}

/** Each counted unit (a word, or a word and a separator): its length and the chance it stands at a given place. */
function units(alphabet: Alphabet): [number, number][] {
  const byLength = new Map<number, number>();
  for (const word of secretWords()) if (alphabet.letters.test(word)) byLength.set(word.length, (byLength.get(word.length) ?? 0) + 1);
  return [...byLength].flatMap(([length, count]) => {
    const chance = count * alphabet.spellings * alphabet.size ** -length;
    return [[length, chance], ...(alphabet.separator > 0 ? [[length + 1, chance * alphabet.separator] as [number, number]] : [])];
  });
}

/**
 * The expected number of sets of non-overlapping units covering at least the rule's share of `length`
 * characters: a[n][c] sums, over every such set within the first n characters covering c of them, the chance
 * that all its units are there (disjoint places: independent). The rule's cover is one such set, so this bounds it.
 */
function wordBoundExact(alphabet: Alphabet, length: number): number {
  const counted = units(alphabet);
  const rows: Float64Array[] = [Float64Array.from({ length: length + 1 }, (_, c) => (c === 0 ? 1 : 0))];
  for (let n = 1; n <= length; n += 1) {
    const row = Float64Array.from(rows[n - 1]);
    for (const [size, chance] of counted) if (size <= n) for (let c = size; c <= n; c += 1) row[c] += chance * rows[n - size][c - size];
    rows.push(row);
  }
  let sum = 0;
  for (let c = Math.ceil(MAX_WORD_SHARE * length); c <= length; c += 1) sum += rows[length][c];
  return sum;
}

/**
 * Beyond EXACT_UP_TO: for any t ≥ 1, the sum over sets covering ≥ C = share·L is at most t^−C (1 + G(t))^L,
 * G(t) = Σ chance·t^size (choose each unit's start among L places, weigh coverage by t). With ρ = (1+G)/t^share
 * below 1 this is at most ρ^L, which falls with L: its value at EXACT_UP_TO bounds every longer secret.
 */
function wordBoundBeyond(alphabet: Alphabet, length: number): number {
  const counted = units(alphabet);
  let best = 0;
  for (let t = 1.01; t < alphabet.size; t *= 1.01) {
    const g = counted.reduce((sum, [size, chance]) => sum + chance * t ** size, 0);
    best = Math.min(best, length * (Math.log10(1 + g) - MAX_WORD_SHARE * Math.log10(t)));
  }
  return 10 ** best;
}

/** Each check's bound at one length (before the bias factor). */
export function checkBounds(alphabet: Alphabet, length: number): Record<string, number> {
  const { size } = alphabet;
  const fewer = alphabet.minDistinct - 1;
  return {
    words: length <= EXACT_UP_TO ? wordBoundExact(alphabet, length) : wordBoundBeyond(alphabet, length),
    // at most `fewer` distinct characters: they lie in one of C(size, fewer) sets, each holding all L with chance (fewer/size)^L
    distinct: 10 ** (log10Binomial(size, fewer) + length * Math.log10(fewer / size)),
    // one shorter string repeated: a period p ≤ L/2 fixes L − p characters
    repeated: Array.from({ length: Math.floor(length / 2) }, (_, p) => size ** -(length - p - 1)).reduce((a, b) => a + b, 0),
    // base64 made of hex digits only is judged as hex (22 of the 64 characters)
    'hex-only': size === 64 ? (22 / 64) ** length : 0,
    // three published samples, each one string
    sample: 3 * size ** -length,
  };
}

/** The largest total over lengths from the minimum to EXACT_UP_TO + 1, bias included. */
export function refusalBound(alphabet: Alphabet): { total: number; worstLength: number; checks: Record<string, number> } {
  let worst = { total: 0, worstLength: alphabet.minLength, checks: {} as Record<string, number> };
  for (let length = alphabet.minLength; length <= EXACT_UP_TO + 1; length += 1) {
    const checks = checkBounds(alphabet, length);
    const total = alphabet.bias * Object.values(checks).reduce((a, b) => a + b, 0);
    if (total > worst.total) worst = { total, worstLength: length, checks };
  }
  return worst;
}

if (require.main === module) {
  console.log(`words of ${MIN_WORD_LETTERS}+ letters: ${secretWords().size}; refused at ${MAX_WORD_SHARE * 100} % cover`);
  for (const alphabet of ALPHABETS) {
    const { total, worstLength, checks } = refusalBound(alphabet);
    const parts = Object.entries(checks).map(([name, value]) => `${name} ${value > 0 ? `10^${Math.log10(value).toFixed(1)}` : '0'}`);
    console.log(`${alphabet.name}: at most 10^${Math.log10(total).toFixed(1)} (at ${worstLength} characters: ${parts.join(', ')}; ×${alphabet.bias} bias)`);
  }
}
