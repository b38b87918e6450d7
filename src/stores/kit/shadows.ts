import { fold, foldedColumnOf, foldedNameOf, type FieldDefinition } from './fields';
import type { Resource } from './resource';

// Shadow values: columns (document fields) the store keeps beside a declared field so that every engine
// compares it alike, whatever its collations do. Written from the field's value on every create and update,
// never answered, never in a request.
//
//   - `<field>Folded` (column `<column>_folded`) of a case-insensitive string: Unicode NFC, lower case;
//     equality, filters and unique keys use it;
//   - `<field>Search` (column `<column>_search`) of a searched field: lower case with accents removed;
//     `?q=` matches a substring of it.

/** The shadow a searched field is matched on. */
export function searchNameOf(name: string): string {
  return `${name}Search`;
}

/** The column of that shadow, from the field's column (`title_search`; columnOf(searchNameOf(name)) alike). */
export function searchColumnOf(column: string): string {
  return `${column}_search`;
}

/** Every shadow column a field's column may have beside it, in one order: they follow it through renames and drops. */
export function shadowColumnsOf(column: string): string[] {
  return [foldedColumnOf(column), searchColumnOf(column)];
}

/**
 * A searched value's one meaning on every engine: canonical decomposition (NFD), lower case (Unicode's
 * default mapping, not full case folding: ß stays ß), combining marks removed (é → e, İ → i), then NFC.
 * `École`, `ÉCOLE` and `ecole` all become `ecole`.
 */
export function foldForSearch(value: string): string {
  return value.normalize('NFD').toLowerCase().replace(/\p{M}/gu, '').normalize('NFC');
}

/**
 * Whether a trigram index can serve `?q=text`: its folded text holds a run of TRIGRAM_LENGTH letters or digits.
 * pg_trgm takes trigrams from the words of a pattern, letters and digits only (others separate words), and
 * which letters count depends on the database's LC_CTYPE: ASCII ones always do. A term without such a run
 * (`---`, `a-b`, emoji, two letters) would read every row the index holds: it is walked within the scan limit.
 */
export function trigramsServe(text: string): boolean {
  return /[a-z0-9]{3}/.test(foldForSearch(text));
}

export interface Shadow {
  /** The shadow's attribute / document field. */
  name: string;
  /** The declared field it follows. */
  source: string;
  definition: FieldDefinition;
  fold(value: string): string;
}

/** Every shadow a resource's store keeps. */
export function shadowsOf(resource: Pick<Resource, 'fields' | 'search'>): Shadow[] {
  const shadows: Shadow[] = [];
  for (const [name, definition] of Object.entries(resource.fields)) {
    if (definition.caseInsensitive) shadows.push({ name: foldedNameOf(name), source: name, definition, fold });
    if (resource.search.includes(name))
      shadows.push({ name: searchNameOf(name), source: name, definition, fold: foldForSearch });
  }
  return shadows;
}

/** The values to write: the fields as given, plus the shadow of each field given. */
export function withShadowValues(shadows: readonly Shadow[], fields: Record<string, unknown>): Record<string, unknown> {
  const values = { ...fields };
  for (const shadow of shadows) {
    if (!(shadow.source in fields)) continue;
    const value = fields[shadow.source];
    values[shadow.name] = typeof value === 'string' ? shadow.fold(value) : value;
  }
  return values;
}

/** `%`, `_`, `[` (SQL Server) and the escape character itself taken literally in a LIKE pattern with `ESCAPE '!'`. */
export function likeContaining(text: string): string {
  return `%${text.replace(/[!%_[]/g, (character) => `!${character}`)}%`;
}

/** A regular expression matching `text` literally, for MongoDB's `$regex`. */
export function regexLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
