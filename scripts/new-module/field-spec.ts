import type { FieldRules } from '../../src/stores/kit/field-rules';

// A field as the generator carries it from the command line to the files it writes, the error every step
// answers with, and a value read (a default's text) and written (a TypeScript literal). The argument
// parsers (spec.ts, rule-forms.ts, action-spec.ts) and the writers (field-types.ts, templates.ts) all need
// these; here, importing none of them, they leave no import cycle between those files (one would make
// the order in which they load, and so which export is still undefined, matter).

export type FieldType = 'string' | 'text' | 'integer' | 'number' | 'boolean' | 'datetime' | 'reference';

/** The module a reference field points at. */
export interface ReferenceSpec {
  module: string;
  /** The exported resource constant of that module (`notesResource`) and its table. */
  resource: string;
  table: string;
  onDelete: 'restrict' | 'cascade';
}

/** A default as declared: a datetime's is its ISO 8601 text. */
export type DefaultValue = string | number | boolean;

export interface FieldSpec {
  /** camelCase, as in JSON and TypeScript; the column is its snake_case. */
  name: string;
  column: string;
  type: FieldType;
  optional: boolean;
  reference?: ReferenceSpec;
  /** `pinned:boolean=false`: what the store (and the column) gives a record that leaves it out. */
  default?: DefaultValue;
  /** Set by actions only (the field an `--action` adds). */
  readOnly?: boolean;
  /** `?q=` searches it (`--search`): the migration adds its search shadow. */
  search?: boolean;
  /** `status:enum:open,closed`, `priority:integer:1..5`, `code:string:/^[A-Z]{3}$/` (rule-forms.ts). */
  rules?: FieldRules;
}

/** What the generator refuses, with a message for the command line. */
export class SpecError extends Error {}

/** A default's text as a value of the field's type, or a SpecError. */
export function parseDefault(name: string, type: FieldType, text: string): DefaultValue {
  const bad = (what: string) => new SpecError(`field '${name}': default '${text}' is not ${what}`);
  switch (type) {
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw bad('true or false');
      return text === 'true';
    case 'integer':
      if (!/^-?\d+$/.test(text) || Math.abs(Number(text)) > 2_147_483_647) throw bad('a 32-bit integer');
      return Number(text);
    case 'number':
      if (!/^-?\d+(\.\d+)?$/.test(text)) throw bad('a number');
      return Number(text);
    case 'datetime':
      if (!/^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/.test(text) || Number.isNaN(Date.parse(text)))
        throw bad('an ISO 8601 instant (e.g. 2030-01-01T00:00:00Z)');
      return new Date(text).toISOString();
    case 'string':
      if (text.length === 0 || text.length > 200) throw bad('1 to 200 characters');
      return text;
    case 'text':
      return text;
    case 'reference':
      throw new SpecError(`field '${name}': a reference has no default`);
  }
}

/** A TypeScript literal: `'text'` (single quotes, escaped), `3`, `true`, a datetime's `new Date('…')`. */
export function literal(value: DefaultValue, type: FieldSpec['type']): string {
  if (typeof value !== 'string') return String(value);
  const quoted = `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  return type === 'datetime' ? `new Date(${quoted})` : quoted;
}
