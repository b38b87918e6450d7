import {
  DATE_PARTS,
  JARGON,
  MAX_WORD_SHARE,
  MIN_WORD_LETTERS,
  YEARS,
  secretWords,
  spellings,
} from '../src/config/secret-rule';

// An upper bound on the chance that src/config/secret-rule.ts refuses a secret a random generator printed
// (32 bytes or more in hex, base64 or base64url), computed from the rule's own word and jargon lists: a union
// bound over its checks, the arithmetic docs/security.md writes out. `npx tsx scripts/secret-rule-bound.ts` prints it;
// test/config/secret-rule.test.ts holds it below 10^-12.

interface Alphabet {
  name: string;
  size: number;
  /** The spellings this alphabet can print (hex: digits and a-f in one case). */
  characters: RegExp;
  /** Chance that one character is a separator the rule counts (base64url: `-` or `_`). */
  separator: number;
  /** Shortest form of 32 bytes. */
  minLength: number;
  /** How much likelier any one string is than under uniform characters: base64's last character may carry only 2 bits (×16). */
  bias: number;
  minDistinct: number;
}

export const ALPHABETS: Alphabet[] = [
  {
    name: 'base64/base64url',
    size: 64,
    characters: /^[A-Za-z0-9+/_-]+$/,
    separator: 2 / 64,
    minLength: 43,
    bias: 16,
    minDistinct: 12,
  },
  { name: 'hex', size: 16, characters: /^[0-9a-f]+$/, separator: 0, minLength: 64, bias: 1, minDistinct: 8 },
];

/** Longest length whose word bound is computed exactly; beyond it the transfer-matrix bound, falling with length. */
const EXACT_UP_TO = 160;

function log10Binomial(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i += 1) sum += Math.log10(n - k + i) - Math.log10(i);
  return sum;
}

/**
 * What ends the text before a unit: an uncovered character (jargon then needs it to be a separator, chance
 * `separator`), the start or a counted separator, a counted separator after a year or date part (a date part
 * may follow), or a covered letter or digit (no jargon can follow).
 */
const End = { Free: 0, Separator: 1, Date: 2, Letter: 3 } as const;
type End = (typeof End)[keyof typeof End];
const ENDS = 4;

/** A counted unit: its length, the chance it stands at a given place, and what it needs before it. */
interface Unit {
  size: number;
  chance: number;
  /** The chance that the character before it is as the rule needs, by what ends the text there. */
  before: (end: End) => number;
  after: End;
  /** Jargon without a separator after it stands only at the end. */
  atEndOnly: boolean;
}

/** Chance that a place holds one of `tokens` in a spelling this alphabet prints, by length. */
function chanceByLength(alphabet: Alphabet, tokens: Iterable<string>): Map<number, number> {
  const byLength = new Map<number, number>();
  for (const token of tokens) {
    const printed = spellings(token).filter((spelling) => alphabet.characters.test(spelling)).length;
    byLength.set(token.length, (byLength.get(token.length) ?? 0) + printed * alphabet.size ** -token.length);
  }
  return byLength;
}

/** Words anywhere; jargon and years as whole tokens; date parts after a year or date part; each ± a separator. */
function unitsFor(alphabet: Alphabet): Unit[] {
  const { separator } = alphabet;
  const whole = (end: End) => [separator, 1, 1, 0][end];
  const kinds = [
    { tokens: secretWords(), before: () => 1, after: End.Separator, wholeToken: false },
    { tokens: JARGON, before: whole, after: End.Separator, wholeToken: true },
    { tokens: YEARS, before: whole, after: End.Date, wholeToken: true },
    { tokens: DATE_PARTS, before: (end: End) => (end === End.Date ? 1 : 0), after: End.Date, wholeToken: true },
  ];
  return kinds.flatMap(({ tokens, before, after, wholeToken }) =>
    [...chanceByLength(alphabet, tokens)].flatMap(([size, chance]): Unit[] => [
      { size, chance, before, after: End.Letter, atEndOnly: wholeToken },
      { size: size + 1, chance: chance * separator, before, after, atEndOnly: false },
    ]),
  );
}

const unitsOf = new WeakMap<Alphabet, Unit[]>();
function units(alphabet: Alphabet): Unit[] {
  let list = unitsOf.get(alphabet);
  if (!list) unitsOf.set(alphabet, (list = unitsFor(alphabet).filter((unit) => unit.chance > 0)));
  return list;
}

/** For each cover c in `previous` (sets within the characters before `unit`), the weight of those sets and `unit`. */
function* followedBy(previous: Float64Array, unit: Unit): Generator<[number, number]> {
  for (let c = 0; (c + 1) * ENDS <= previous.length; c += 1) {
    let sum = 0;
    for (let end = 0; end < ENDS; end += 1) sum += previous[c * ENDS + end] * unit.before(end as End);
    if (sum > 0) yield [c + unit.size, sum * unit.chance];
  }
}

/**
 * The expected number of sets of non-overlapping units covering c characters, that is the sum of the chances
 * that all of a set's units are there (disjoint characters: independent; the separator before jargon is either
 * uncovered, chance `separator`, or the one the unit before counted): rows[n][c·ENDS + end] over the sets within
 * the first n characters, by what ends them. The rule's cover is one such set, so the sum over c ≥ the rule's
 * share bounds the chance that it refuses.
 */
const tables = new WeakMap<Alphabet, Float64Array[]>();
function coverTable(alphabet: Alphabet): Float64Array[] {
  let rows = tables.get(alphabet);
  if (rows) return rows;
  rows = [new Float64Array(ENDS)];
  rows[0][End.Separator] = 1; // the start stands for a separator before jargon
  for (let n = 1; n <= EXACT_UP_TO + 1; n += 1) {
    const row = new Float64Array((n + 1) * ENDS);
    for (let i = 0; i < rows[n - 1].length; i += 1) row[i - (i % ENDS) + End.Free] += rows[n - 1][i]; // n-th uncovered
    for (const unit of units(alphabet)) {
      if (unit.atEndOnly || unit.size > n) continue;
      for (const [c, weight] of followedBy(rows[n - unit.size], unit)) row[c * ENDS + unit.after] += weight;
    }
    rows.push(row);
  }
  tables.set(alphabet, rows);
  return rows;
}

function wordBoundExact(alphabet: Alphabet, length: number): number {
  const rows = coverTable(alphabet);
  const least = Math.ceil(MAX_WORD_SHARE * length);
  let sum = rows[length].slice(least * ENDS).reduce((a, b) => a + b, 0);
  for (const unit of units(alphabet)) {
    if (!unit.atEndOnly || unit.size > length) continue;
    for (const [c, weight] of followedBy(rows[length - unit.size], unit)) if (c >= least) sum += weight;
  }
  return sum;
}

/** M[from][to] = Σ weight·λ^−size over the steps from `from`: an uncovered character, or a unit (weight ×t^size). */
function stepMatrix(counted: Unit[], t: number, lambda: number): number[][] {
  const matrix = Array.from({ length: ENDS }, () => Array.from({ length: ENDS }, () => 0));
  for (let from = 0; from < ENDS; from += 1) {
    matrix[from][End.Free] += 1 / lambda;
    for (const { size, chance, before, after } of counted) {
      matrix[from][after] += chance * before(from as End) * (t / lambda) ** size;
    }
  }
  return matrix;
}

/** A positive h with M·h ≤ h, found by power iteration and then checked, or undefined. */
function subinvariant(matrix: number[][]): number[] | undefined {
  const times = (h: number[]) => matrix.map((row) => row.reduce((sum, value, to) => sum + value * h[to], 0));
  let h = Array.from({ length: ENDS }, () => 1);
  for (let round = 0; round < 200; round += 1) {
    const next = times(h).map((value) => value + 1e-12); // kept positive
    h = next.map((value) => value / Math.max(...next));
  }
  return times(h).every((value, from) => value <= h[from]) ? h : undefined;
}

/**
 * Beyond EXACT_UP_TO: weigh each set by t^cover (t ≥ 1). Z_n(e), the weighed sum over sets within n characters
 * after a prefix ending in e, is Σ over the first step of its weight·Z_{n−size}(what the step ends in); jargon
 * is let stand anywhere. A positive h with M(λ)·h ≤ h gives Z_n(e) ≤ λ^n·h(e)/min h (induction on n, Z_0 = 1),
 * so the chance is at most t^−C·λ^L·h(start)/min h with C = share·L: with λ/t^share below 1 it falls with L,
 * and its value at EXACT_UP_TO bounds every longer secret.
 */
function wordBoundBeyond(alphabet: Alphabet, length: number): number {
  const counted = units(alphabet);
  let best = 0;
  for (let t = 1.05; t < alphabet.size; t *= 1.05) {
    let [low, high] = [0, 3 * Math.log10(alphabet.size)]; // log10 λ, bisected: M(λ) is below 1 at the top
    for (let round = 0; round < 40; round += 1) {
      const middle = (low + high) / 2;
      if (subinvariant(stepMatrix(counted, t, 10 ** middle))) high = middle;
      else low = middle;
    }
    const h = subinvariant(stepMatrix(counted, t, 10 ** high));
    if (!h) continue;
    const start = Math.log10(h[End.Separator] / Math.min(...h));
    best = Math.min(best, length * (high - MAX_WORD_SHARE * Math.log10(t)) + start);
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
    repeated: Array.from({ length: Math.floor(length / 2) }, (_, p) => size ** -(length - p - 1)).reduce(
      (a, b) => a + b,
      0,
    ),
    // base64 made of hex digits only is judged as hex (22 of the 64 characters)
    'hex-only': size === 64 ? (22 / 64) ** length : 0,
    // three published samples, each one string
    sample: 3 * size ** -length,
  };
}

/** The largest total over lengths from the minimum to EXACT_UP_TO + 1, bias included. */
export function refusalBound(alphabet: Alphabet): {
  total: number;
  worstLength: number;
  checks: Record<string, number>;
} {
  let worst = { total: 0, worstLength: alphabet.minLength, checks: {} as Record<string, number> };
  for (let length = alphabet.minLength; length <= EXACT_UP_TO + 1; length += 1) {
    const checks = checkBounds(alphabet, length);
    const total = alphabet.bias * Object.values(checks).reduce((a, b) => a + b, 0);
    if (total > worst.total) worst = { total, worstLength: length, checks };
  }
  return worst;
}

if (require.main === module) {
  console.log(
    `words of ${MIN_WORD_LETTERS}+ letters: ${secretWords().size}; jargon as whole tokens: ${JARGON.size}, ` +
      `${YEARS.size} years, ${DATE_PARTS.size} date parts after a year; refused at ${MAX_WORD_SHARE * 100} % cover`,
  );
  for (const alphabet of ALPHABETS) {
    const { total, worstLength, checks } = refusalBound(alphabet);
    const parts = Object.entries(checks).map(
      ([name, value]) => `${name} ${value > 0 ? `10^${Math.log10(value).toFixed(1)}` : '0'}`,
    );
    console.log(
      `${alphabet.name}: at most 10^${Math.log10(total).toFixed(1)} (at ${worstLength} characters: ${parts.join(', ')}; ×${alphabet.bias} bias)`,
    );
  }
}
