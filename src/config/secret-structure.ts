// How a secret reads when it is split where people join parts: the guesses an attacker spends on each part
// as what it is (a word or name from a list, a year, a version, a separator), and how much of the secret such
// parts make. zxcvbn-ts alone prices a word it does not know (a company name, `prod`, `jwt`) as ~3.3 bits a
// letter, so a long enough phrase of them climbs past any bar; here each part is priced by the cheapest way
// to guess it, and a secret made mostly of such parts is a phrase whatever its length (people pick related
// words — company, environment, purpose, year, version — so their guesses are far fewer than the sum says).

/** One part of a secret, in order. */
export interface SecretPart {
  text: string;
  kind: 'letters' | 'digits' | 'version' | 'separator' | 'symbols';
}

/** Where people join parts: camelCase and TitleCase words, digit runs, versions (`v2`, `V1.3`), runs of other characters. */
const PART = /[vV]\d{1,2}(?:\.\d{1,2}){0,2}|[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+|[^A-Za-z0-9]+/g;
// Not `+` or `/`: base64 is full of them, and people seldom join words with them.
const SEPARATORS = new Set(['-', '_', '.', ':', ' ', ',']);

export function secretParts(secret: string): SecretPart[] {
  return [...secret.matchAll(PART)].map(([text]) => {
    if (/^[vV]\d/.test(text)) return { text, kind: 'version' as const };
    if (/^[A-Za-z]+$/.test(text)) return { text, kind: 'letters' as const };
    if (/^[0-9]+$/.test(text)) return { text, kind: 'digits' as const };
    return { text, kind: text.length === 1 && SEPARATORS.has(text) ? ('separator' as const) : ('symbols' as const) };
  });
}

/** What the dictionary estimate (zxcvbn-ts, lowercased) says of a letters part (or a run of digits). */
export interface WordEstimate {
  /** log2 of its guesses. */
  bits: number;
  /** True when a dictionary (words, names, common passwords) lists it, or its patterns explain all of it. */
  known: boolean;
  /** The length of each word, name or pattern found in it (`group` and `king` in `matezgroupking`: 5 and 4). */
  patternLengths: readonly number[];
}

export interface StructureEstimate {
  /** log2 of the guesses to find the whole secret part by part. */
  bits: number;
  /** Share of the secret's characters in the parts of a phrase (words, names, years, versions, separators), see phraseChars. */
  guessableShare: number;
}

const log2 = Math.log2;

/** log2 of the guesses of `text` as random characters of its own kinds (lower, upper, digits, symbols). */
export function bruteForceBits(text: string): number {
  let alphabet = 0;
  if (/[a-z]/.test(text)) alphabet += 26;
  if (/[A-Z]/.test(text)) alphabet += 26;
  if (/[0-9]/.test(text)) alphabet += 10;
  if (/[^A-Za-z0-9]/.test(text)) alphabet += 33;
  return text.length * log2(Math.max(alphabet, 2));
}

/** Spoken like a name: no three consonants and no three vowels in a row (`globex`, `initech`, `hooli`, `acme`). */
function pronounceable(letters: string): boolean {
  const lower = letters.toLowerCase();
  return lower.length >= 4 && /[aeiouy]/.test(lower) && !/[^aeiouy]{3}/.test(lower) && !/[aeiouy]{3}/.test(lower);
}

/** Letters parts shorter than this are not words for the repeat rule (random base64 repeats two-letter runs). */
const MIN_WORD = 3;

/** Letters in one spelling this long are words run together, or random text no documented command prints. */
const LONG_RUN = 12;

/** 1900–2099, as four digits. */
const isYear = (digits: string) => /^(19|20)\d\d$/.test(digits);
/** One year or several run together (`20102019`). */
const isYears = (digits: string) => /^(?:(19|20)\d\d)+$/.test(digits);

/** Lowercase, Capitalised or UPPER: one of three spellings (1.6 bits); anything else is priced as random. */
function caseBits(letters: string): number | undefined {
  return /^[a-z]+$|^[A-Z][a-z]*$|^[A-Z]+$/.test(letters) ? log2(3) : undefined;
}

/** log2 of the guesses of one part as what it is, or undefined when it has no cheaper reading than random. */
function structuredBits(part: SecretPart, word: WordEstimate | undefined, seenSeparators: Set<string>): number | undefined {
  switch (part.kind) {
    case 'separator': {
      const first = !seenSeparators.has(part.text);
      seenSeparators.add(part.text);
      return first ? log2(SEPARATORS.size) : 0; // the same joiner again costs nothing
    }
    case 'version':
      return log2(2) + part.text.slice(1).split('.').reduce((bits, number) => bits + log2(Math.max(10, Number(number) + 1)), 0);
    case 'digits': {
      const value = Number(part.text);
      const asNumber = isYear(part.text) ? log2(200) : part.text.length <= 3 ? log2(Math.max(10, value + 1)) + (part.text.startsWith('0') ? 1 : 0) : undefined;
      // Longer runs as zxcvbn-ts reads them (years and dates run together: `20332014`).
      return Math.min(asNumber ?? Infinity, word?.bits ?? Infinity);
    }
    case 'letters': {
      // As zxcvbn-ts prices the lowercased run: words and names by their rank, letters no list holds at
      // ~3.3 bits each (a pronounceable made-up name: `globex`), in one of three spellings.
      const spelling = caseBits(part.text);
      return spelling === undefined || word === undefined ? undefined : word.bits + spelling;
    }
    default:
      return undefined;
  }
}

/**
 * The structure estimate of a secret: each part priced by the cheaper of random characters and what it
 * is; `words` holds the dictionary estimate of each letters part (lowercased), by its text.
 */
export function structureEstimate(secret: string, words: ReadonlyMap<string, WordEstimate>): StructureEstimate {
  const seenSeparators = new Set<string>();
  const seenWords = new Set<string>();
  const parts: Priced[] = secretParts(secret).map((part) => {
    const random = bruteForceBits(part.text);
    const again = part.kind === 'letters' && part.text.length >= MIN_WORD && seenWords.has(part.text.toLowerCase());
    seenWords.add(part.text.toLowerCase());
    const word = part.kind === 'symbols' || part.kind === 'separator' ? undefined : words.get(part.text.toLowerCase());
    const structured = structuredBits(part, word, seenSeparators);
    const cheaper = structured !== undefined && structured < random;
    // A word said again (`JwtJwt`, `summer-2024-summer`) costs only the choice to repeat it.
    return { ...part, bits: again ? 1 : cheaper ? structured : random, cheaper, known: cheaper && word?.known === true, wordChars: wordChars(part.text, word) };
  });
  const joins = new Map<string, number>();
  for (const part of parts) if (part.kind === 'separator') joins.set(part.text, (joins.get(part.text) ?? 0) + 1);
  // A phrase joins three parts or more with one character: a joiner seen once is no evidence (base64url has a few).
  const joiner = (neighbour: Priced | undefined) => neighbour?.kind === 'separator' && (joins.get(neighbour.text) ?? 0) >= 2;
  const phrase = parts.reduce((sum, part, index) => sum + phraseChars(part, parts[index - 1], parts[index + 1], joiner), 0);
  // Which parts are there and in what order: a phrase of n parts is one of a few templates (≈ 2 bits a part).
  const bits = parts.reduce((sum, part) => sum + part.bits, 0) + 2 * parts.length;
  return { bits, guessableShare: secret.length === 0 ? 1 : phrase / secret.length };
}

/**
 * Characters of a run inside the words and patterns found in it: those of four characters or more, and in
 * a long run (eight or more: no random base64 or hex has many) those of three too (`zachhmacnat`).
 */
function wordChars(text: string, word: WordEstimate | undefined): number {
  const shortest = text.length >= 8 ? 3 : 4;
  return (word?.patternLengths ?? []).filter((length) => length >= shortest).reduce((sum, length) => sum + length, 0);
}

/** A part with its price: `cheaper` when guessed as what it is, `known` when a dictionary holds it. */
interface Priced extends SecretPart {
  bits: number;
  cheaper: boolean;
  known: boolean;
  wordChars: number;
}

/**
 * How many of a part's characters count towards the phrase share. Random base64 and hex are full of short
 * runs that some list holds or that could be spoken (`fed`, `Kim`, `Sonl`, `42`): only what a phrase is
 * made of counts — separators, versions, years, dictionary words of four letters or more (inside a longer
 * run too: `matezgroupking`), names that could be spoken next to such parts (`AcmeSecret`), words and names
 * side by side in camelCase (`DevAuth`, `Alane90Prod`), and any word, acronym or number standing between
 * separators (`-jwt-`, `_42_`), known or not.
 */
function phraseChars(part: Priced, before: Priced | undefined, after: Priced | undefined, joiner: (neighbour: Priced | undefined) => boolean): number {
  // Between separators, or between one and the start or end; a phrase joins with one character (`-api-`),
  // random base64url mixes `-` and `_`.
  const standsAlone =
    (joiner(before) || joiner(after)) && (joiner(before) || !before) && (joiner(after) || !after) && !(before && after && before.text !== after.text);
  const longWord = (candidate: Priced | undefined) => candidate?.kind === 'letters' && candidate.text.length >= 4 && (candidate.known || pronounceable(candidate.text));
  const wordLike = (candidate: Priced | undefined) => candidate?.kind === 'letters' && candidate.text.length >= 3 && candidate.known && candidate.text !== candidate.text.toUpperCase();
  const anchor = (neighbour: Priced | undefined) => (longWord(neighbour) && neighbour!.known) || neighbour?.kind === 'version' || (neighbour?.kind === 'digits' && isYear(neighbour.text));
  switch (part.kind) {
    case 'separator':
      return joiner(part) ? part.text.length : 0;
    case 'version':
      return part.text.length;
    case 'letters':
      if (standsAlone || (longWord(part) && (part.known || anchor(before) || anchor(after)))) return part.text.length;
      if (wordLike(part) && (wordLike(before) || wordLike(after))) return part.text.length; // camelCase: `DevAuth`
      // Words run together in one spelling (`risliincinternalappmarseille`): no base64 or hex has such a run.
      if (part.text.length >= LONG_RUN && part.wordChars * 3 >= part.text.length) return part.text.length;
      return part.wordChars;
    case 'digits':
      return standsAlone || isYears(part.text) || (part.text.length <= 3 && wordLike(before) && wordLike(after)) ? part.text.length : 0;
    default:
      return 0;
  }
}

/** The parts of a secret that zxcvbn-ts prices (letters, lowercased; runs of four digits or more). */
export function letterParts(secret: string): string[] {
  const estimated = (part: SecretPart) => (part.kind === 'letters' && part.text.length >= 2) || (part.kind === 'digits' && part.text.length >= 4);
  return [...new Set(secretParts(secret).filter(estimated).map((part) => part.text.toLowerCase()))];
}
