// A field's rules: the values it may hold beyond its kind. Declared once on the field (`enum`, `minimum`,
// `maximum`, `minLength`, `pattern`), they are read by the request schemas (a 422 naming what is allowed),
// the API document, the filters, the relational CHECK constraints and MongoDB's $jsonSchema validator
// (src/stores/sql/migrations/check-constraints.ts, src/stores/mongo/collection-validator.ts), the start-up
// comparison with the database, and the contract suites' samples.

import { unportablePattern } from './portable-pattern';

export interface FieldRules {
  /** string: the only values allowed, in the order the document lists them. */
  readonly enum?: readonly string[];
  /** integer and number: the smallest value allowed (inclusive). */
  readonly minimum?: number;
  /** integer and number: the largest value allowed (inclusive). */
  readonly maximum?: number;
  /** string: the fewest characters (code points) allowed; strings are never empty anyway. */
  readonly minLength?: number;
  /**
   * string: a regular expression the whole value must match (write the anchors: `^[A-Z]{3}$`). Use the
   * syntax JavaScript, PostgreSQL, MySQL/MariaDB and MongoDB read alike (classes, `{n,m}`, `|`, anchors).
   */
  readonly pattern?: string;
}

/** What of a field its rules are checked against (fields.ts's FieldDefinition carries it). */
export interface RuledField extends FieldRules {
  readonly kind: string;
  readonly maxLength?: number;
  readonly default?: unknown;
}

/** The name of the CHECK constraint that holds a column's rules on the relational engines: found by it later. */
export function checkConstraintName(table: string, column: string): string {
  return `${table}_${column}_check`;
}

const RULE_NAMES = ['enum', 'minimum', 'maximum', 'minLength', 'pattern'] as const;

/** The rules a field declares (empty when none). */
export function rulesOf(definition: FieldRules): FieldRules {
  return Object.fromEntries(
    RULE_NAMES.filter((name) => definition[name] !== undefined).map((name) => [name, definition[name]]),
  ) as FieldRules;
}

export function hasRules(definition: FieldRules): boolean {
  return RULE_NAMES.some((name) => definition[name] !== undefined);
}

/** What the declared rules allow, in words for a 422 and the docs: `one of: open, closed`, `from 1 to 5`. */
export function allowedInWords(rules: FieldRules): string {
  const words: string[] = [];
  if (rules.enum) words.push(`one of: ${rules.enum.join(', ')}`);
  if (rules.minimum !== undefined && rules.maximum !== undefined)
    words.push(`from ${rules.minimum} to ${rules.maximum}`);
  else if (rules.minimum !== undefined) words.push(`at least ${rules.minimum}`);
  else if (rules.maximum !== undefined) words.push(`at most ${rules.maximum}`);
  if (rules.minLength !== undefined) words.push(`at least ${rules.minLength} characters`);
  if (rules.pattern !== undefined) words.push(`matching ${rules.pattern}`);
  return words.join(', ');
}

/** The JSON Schema keywords of the rules (what the request schemas and the document carry). */
export function ruleKeywords(rules: FieldRules): Record<string, unknown> {
  return { ...rules, ...(rules.enum ? { enum: [...rules.enum] } : {}) };
}

/** Whether a value of the field's kind keeps its rules (null and absent values are the kind's business). */
export function keepsRules(rules: FieldRules, value: unknown): boolean {
  if (typeof value === 'string') {
    if (rules.enum && !rules.enum.includes(value)) return false;
    if (rules.minLength !== undefined && [...value].length < rules.minLength) return false;
    if (rules.pattern !== undefined && !new RegExp(rules.pattern, 'u').test(value)) return false;
  }
  if (typeof value === 'number') {
    if (rules.minimum !== undefined && value < rules.minimum) return false;
    if (rules.maximum !== undefined && value > rules.maximum) return false;
  }
  return true;
}

/** What is wrong with a field's rules as declared (each in words), for defineResource to refuse. */
export function ruleProblems(name: string, definition: RuledField): string[] {
  const rules = rulesOf(definition);
  const problems: string[] = [];
  const where = `'${name}'`;
  const stringOnly = rules.enum !== undefined || rules.minLength !== undefined || rules.pattern !== undefined;
  const numeric = rules.minimum !== undefined || rules.maximum !== undefined;
  if (stringOnly && definition.kind !== 'string')
    problems.push(`${where}: enum, minLength and pattern are for string fields`);
  if (numeric && definition.kind !== 'integer' && definition.kind !== 'number')
    problems.push(`${where}: minimum and maximum are for integer and number fields`);
  if (rules.enum) {
    if (rules.enum.length === 0) problems.push(`${where}: an empty enum`);
    if (new Set(rules.enum).size !== rules.enum.length) problems.push(`${where}: an enum value is given twice`);
    if (
      rules.enum.some(
        (value) => value.length === 0 || value.length > (definition.maxLength ?? 200) || value.includes(','),
      )
    )
      problems.push(`${where}: enum values are 1 to ${definition.maxLength ?? 200} characters, without commas`);
  }
  for (const bound of ['minimum', 'maximum'] as const) {
    const value = rules[bound];
    if (value !== undefined && !(definition.kind === 'integer' ? Number.isSafeInteger(value) : Number.isFinite(value)))
      problems.push(`${where}: ${bound} is not ${definition.kind === 'integer' ? 'an integer' : 'a finite number'}`);
  }
  if (rules.minimum !== undefined && rules.maximum !== undefined && rules.minimum > rules.maximum)
    problems.push(`${where}: minimum ${rules.minimum} is above maximum ${rules.maximum}`);
  if (
    rules.minLength !== undefined &&
    !(Number.isSafeInteger(rules.minLength) && rules.minLength >= 1 && rules.minLength <= (definition.maxLength ?? 200))
  )
    problems.push(`${where}: minLength is a whole number from 1 to its maxLength`);
  if (rules.pattern !== undefined) {
    try {
      new RegExp(rules.pattern, 'u');
      for (const words of unportablePattern(rules.pattern))
        problems.push(`${where}: pattern ${rules.pattern}: ${words}`);
    } catch {
      problems.push(`${where}: pattern ${rules.pattern} is not a regular expression`);
    }
    if (/'/.test(rules.pattern))
      problems.push(`${where}: a pattern may not contain a quote (it is written into the database's CHECK)`);
  }
  if (problems.length === 0 && definition.default !== undefined && !keepsRules(rules, definition.default))
    problems.push(`${where}: the default ${JSON.stringify(definition.default)} is not ${allowedInWords(rules)}`);
  return problems;
}
