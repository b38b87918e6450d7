import type * as LanguageCommon from '@zxcvbn-ts/language-common';
import type * as LanguageEn from '@zxcvbn-ts/language-en';

// The shapes cracking rule sets try first (hashcat's best64 and its successors): one base word — a common
// password, a season, month or day, a first or last name, a common English word, or the user's own name or
// email — spelt with capitals or l33t substitutions, with a few digits, a year and symbols added before or
// after it (`Summer2024!`, `October2023?`, `!!Michael1985`, `P@ssw0rd2024!`), or said twice
// (`summer2024summer`). zxcvbn-ts prices these at about 10^8 guesses, just at its bar, yet a rule-based
// attack reaches them within the first millions of candidates per base word: they are refused as a shape,
// whatever the estimate. Keyboard walks are zxcvbn-ts's own (its spatial matcher and common-password list).

/** Added characters (digits and symbols, both ends together) up to which a decorated word stays a pattern. */
const MAX_DECORATION = 8;
/** The shortest base word counted: shorter ones are not a word people build a password around. */
const MIN_BASE = 3;
/** Common English words taken as bases, by frequency (the list is ~56,000 long; the tail is rare words). */
const COMMON_WORDS = 20_000;

/** l33t spellings rule sets undo first. */
const L33T: Record<string, string> = {
  '4': 'a',
  '@': 'a',
  '8': 'b',
  '(': 'c',
  '3': 'e',
  '6': 'g',
  '9': 'g',
  '1': 'i',
  '!': 'i',
  '|': 'l',
  '0': 'o',
  '5': 's',
  $: 's',
  '7': 't',
  '+': 't',
  '2': 'z',
};

let common: Set<string> | undefined;
let bases: Set<string> | undefined;

/**
 * About 49,000 passwords seen most often in breaches, from zxcvbn-ts's common dictionary (a kept package):
 * refused as they are (password-policy.ts) and taken as bases here. Loaded on first use: a service without
 * registration or password change never holds the ~4 MB set.
 */
export function commonPasswords(): Set<string> {
  if (!common) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberately lazy, see above
    const language = require('@zxcvbn-ts/language-common') as typeof LanguageCommon;
    common = new Set(language.dictionary['passwords-common'] as string[]);
  }
  return common;
}

/** The other bases, built on first use (~100,000 words; the same dictionaries zxcvbn-ts loads for the estimate). */
function baseWords(): Set<string> {
  if (!bases) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by a service that lets users choose passwords
    const en = require('@zxcvbn-ts/language-en') as typeof LanguageEn;
    const lists: readonly (readonly string[])[] = [
      en.dictionary['seasons-en'] as string[],
      en.dictionary['months-en'] as string[],
      en.dictionary['daysOfWeek-en'] as string[],
      en.dictionary['firstnames-en'] as string[],
      en.dictionary['lastnames-en'] as string[],
      (en.dictionary['commonWords-en'] as string[]).slice(0, COMMON_WORDS),
    ];
    bases = new Set(lists.flat().filter((word) => word.length >= MIN_BASE));
  }
  return bases;
}

const isLetter = (character: string) => /\p{L}/u.test(character);

/**
 * The word itself, l33t undone, lowercased; undefined when it is no list entry's shape. One hyphen,
 * apostrophe or space between letters stays: the name lists hold `ann-marie`, `o'brien` and `la verne`.
 */
function plain(core: string): string | undefined {
  const undone = [...core.toLowerCase()].map((character) => L33T[character] ?? character).join('');
  return /^\p{L}+(?:['’ -]\p{L}+)*$/u.test(undone) ? undone : undefined;
}

/** True for a base word: listed, or one of the user's own words, or either said twice (`summersummer`). */
function isBase(word: string, own: ReadonlySet<string>): boolean {
  if (word.length < MIN_BASE) return false;
  const known = (candidate: string) =>
    commonPasswords().has(candidate) || baseWords().has(candidate) || own.has(candidate);
  if (known(word)) return true;
  const half = word.length / 2;
  return Number.isInteger(half) && word.slice(0, half) === word.slice(half) && known(word.slice(0, half));
}

/**
 * The base word when `password` is one base word with at most MAX_DECORATION digits and symbols around it
 * (or a base, digits and symbols, and the base again), else undefined. `userWords` are the account's own
 * (email and its local part's pieces, name and its parts).
 */
export function decoratedWord(password: string, userWords: readonly string[]): string | undefined {
  const own = new Set(userWords.map((word) => word.toLowerCase()).filter((word) => word.length >= MIN_BASE));
  const characters = [...password];
  const letters = characters
    .map((character, index) => (isLetter(character) ? index : -1))
    .filter((index) => index >= 0);
  if (letters.length === 0) return undefined;
  const [first, last] = [letters[0], letters[letters.length - 1]];
  // Every way to cut the decoration off: l33t digits and symbols at the word's ends may belong to it (`Lov3`).
  for (let start = 0; start <= first; start += 1) {
    for (let end = characters.length; end > last; end -= 1) {
      if (start + (characters.length - end) > MAX_DECORATION) continue;
      const word = plain(characters.slice(start, end).join(''));
      if (word !== undefined && isBase(word, own)) return word;
    }
  }
  return repeatedAroundDecoration(characters, own);
}

/** `summer2024summer`, `5ummer1991$ummer`: a base word, up to MAX_DECORATION digits and symbols, the same word again. */
function repeatedAroundDecoration(characters: readonly string[], own: ReadonlySet<string>): string | undefined {
  for (let cut = MIN_BASE; cut < characters.length; cut += 1) {
    for (let resume = cut + 1; resume <= Math.min(cut + MAX_DECORATION, characters.length - MIN_BASE); resume += 1) {
      if (characters.slice(cut, resume).some(isLetter)) break;
      const word = plain(characters.slice(0, cut).join(''));
      if (word !== undefined && word === plain(characters.slice(resume).join('')) && isBase(word, own)) return word;
    }
  }
  return undefined;
}

/** Share of a password's neighbouring characters that are neighbours on a keyboard (qwerty, qwertz, azerty, dvorak, keypads). */
export function keyboardWalkShare(password: string): number {
  const characters = [...password];
  if (characters.length < 2) return 0;
  let best = 0;
  for (const graph of Object.values(keyboardGraphs())) {
    let adjacent = 0;
    for (let i = 1; i < characters.length; i += 1)
      if (graph.neighbours(characters[i - 1], characters[i])) adjacent += 1;
    best = Math.max(best, adjacent / (characters.length - 1));
  }
  return best;
}

interface KeyboardGraph {
  neighbours(a: string, b: string): boolean;
}

let graphs: Record<string, KeyboardGraph> | undefined;

/** zxcvbn-ts's keyboard layouts as neighbour tests. */
function keyboardGraphs(): Record<string, KeyboardGraph> {
  if (!graphs) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by a service that lets users choose passwords
    const { adjacencyGraphs } = require('@zxcvbn-ts/language-common') as typeof LanguageCommon;
    graphs = Object.fromEntries(
      Object.entries(adjacencyGraphs as Record<string, Record<string, (string | null)[]>>).map(([layout, keys]) => [
        layout,
        // Every character, plain and shifted, is a key; its neighbours are listed as pairs of both (`wW`).
        { neighbours: (a: string, b: string) => (keys[a] ?? []).some((pair) => pair?.includes(b) === true) },
      ]),
    );
  }
  return graphs;
}
