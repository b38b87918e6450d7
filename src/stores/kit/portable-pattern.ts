// A field's pattern is held three ways: by JavaScript when a request is validated, by PostgreSQL's `~`
// (Advanced Regular Expressions) and by MySQL's REGEXP (ICU) or MariaDB's (PCRE2) in the CHECK. JavaScript,
// ICU and PCRE2 read the forms below; PostgreSQL refuses some at the migration, on the deploy, after every
// test passed on SQLite (which holds no pattern), and reads two others differently. Each is named here so
// that defineResource and the generator refuse it before anything is written.

interface Unportable {
  /** Where it starts in the pattern: the text at `index` begins with `form`. */
  matches(pattern: string, index: number): boolean;
  words: string;
}

const starts = (form: string) => (pattern: string, index: number) => pattern.startsWith(form, index);

/** Escapes (read after a backslash) and groups PostgreSQL cannot read, or reads otherwise. */
const UNPORTABLE: readonly Unportable[] = [
  {
    matches: starts('\\p{'),
    words: '\\p{…} (a Unicode property): PostgreSQL cannot read it; write the characters out, e.g. [A-Z]',
  },
  {
    matches: starts('\\P{'),
    words: '\\P{…} (a Unicode property): PostgreSQL cannot read it; write the characters out',
  },
  { matches: starts('\\u{'), words: '\\u{…} (a code point): PostgreSQL reads \\uXXXX only' },
  { matches: starts('\\k<'), words: '\\k<…> (a named back-reference): PostgreSQL cannot read it; use \\1' },
  {
    matches: (pattern, index) => pattern.startsWith('(?<', index) && !['=', '!'].includes(pattern[index + 3] ?? ''),
    words: '(?<name>…) (a named group): PostgreSQL cannot read it; use (…)',
  },
  {
    matches: starts('\\b'),
    words: '\\b: a word boundary in JavaScript, a backspace to PostgreSQL (whose boundary is \\y)',
  },
  { matches: starts('\\B'), words: '\\B: not a word boundary in JavaScript, a backslash to PostgreSQL' },
];

/** Why a pattern (a valid JavaScript one) would not be held alike by every engine with regular expressions, in words. */
export function unportablePattern(pattern: string): string[] {
  const found = new Set<string>();
  for (let index = 0; index < pattern.length; index += 1) {
    const form = UNPORTABLE.find((candidate) => candidate.matches(pattern, index));
    if (form) found.add(form.words);
    if (pattern[index] === '\\') index += 1; // an escaped character is not the start of a form
  }
  return [...found];
}
