// What `npm run new:module -- <name> <field>:<type>[?] ...` asks for, checked before anything is written.

export const FIELD_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'datetime'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldSpec {
  /** camelCase, as in JSON and TypeScript; the column is its snake_case. */
  name: string;
  column: string;
  type: FieldType;
  optional: boolean;
}

export interface ModuleSpec {
  /** As in the URL: lower-case, dashes (`invoice-items`). */
  name: string;
  /** Identifiers derived from the name. */
  camel: string; // invoiceItems
  table: string; // invoice_items
  singular: string; // InvoiceItem (type names)
  fields: FieldSpec[];
}

export class SpecError extends Error {}

const MODULE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;
/** Names the service uses itself, or that would shadow a mount point it has. */
const RESERVED_MODULES = new Set(['auth', 'health', 'api', 'openapi', 'docs', 'kit', 'index']);
/** Every record has these already; and names that are not safe as object keys. */
const RESERVED_FIELDS = new Set(['id', 'ownerId', 'createdAt', 'updatedAt', 'constructor', 'prototype', 'toString', 'valueOf']);

const pascal = (words: string[]) => words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');

function singularOf(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ses|xes|zes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

function parseField(argument: string, seen: Set<string>): FieldSpec {
  const match = /^([^:]+):([a-z]+)(\?)?$/.exec(argument);
  if (!match) throw new SpecError(`field '${argument}': expected <name>:<type>[?], e.g. title:string or body:text?`);
  const [, name, type, optional] = match as unknown as [string, string, string, string | undefined];
  if (!FIELD_NAME.test(name) || name.length > 40) throw new SpecError(`field '${name}': names are camelCase letters and digits, starting with a letter (at most 40)`);
  if (RESERVED_FIELDS.has(name)) throw new SpecError(`field '${name}': reserved (every record has id, ownerId, createdAt and updatedAt already)`);
  if (!(FIELD_TYPES as readonly string[]).includes(type)) throw new SpecError(`field '${name}': unknown type '${type}' (one of ${FIELD_TYPES.join(', ')})`);
  if (seen.has(name)) throw new SpecError(`field '${name}' is given twice`);
  seen.add(name);
  return { name, column: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), type: type as FieldType, optional: optional === '?' };
}

/** The module to write, or a SpecError saying what is wrong with the arguments. */
export function parseSpec(name: string | undefined, fieldArguments: readonly string[]): ModuleSpec {
  if (!name) throw new SpecError('a module name is needed, e.g. notes');
  if (!MODULE_NAME.test(name) || name.length > 40) {
    throw new SpecError(`module name '${name}': lower-case letters and digits, words joined by single dashes, starting with a letter (at most 40)`);
  }
  if (RESERVED_MODULES.has(name)) throw new SpecError(`module name '${name}' is reserved`);
  if (fieldArguments.length === 0) throw new SpecError('at least one field is needed, e.g. title:string');
  const seen = new Set<string>();
  const fields = fieldArguments.map((argument) => parseField(argument, seen));
  if (fields.every((field) => field.optional)) throw new SpecError('at least one field must be required (without ?)');
  const words = name.split('-');
  const camel = words[0] + pascal(words.slice(1));
  const singularWords = [...words.slice(0, -1), singularOf(words.at(-1)!)];
  return { name, camel, table: words.join('_'), singular: pascal(singularWords), fields };
}
