import RandExp from 'randexp';
import { hasRules, keepsRules, rulesOf, type FieldRules } from '../../src/stores/kit/field-rules';
import type { FieldDefinition } from '../../src/stores/kit/fields';

// Samples of a field with rules (src/stores/kit/field-rules.ts), for the contract suites: values drawn
// from the declared values, ranges, lengths and patterns (each seed its own, as far as the rule allows),
// and values just outside each rule, which the routes must refuse with a 422 and the database itself
// must refuse where it holds that rule.

const INT32 = 2_147_483_647;

/** A string the pattern matches, drawn with a seeded stream (`randexp`), at least minLength long and within maxLength. */
function patternSample(rules: FieldRules, maxLength: number, seed: number): string {
  let state = seed * 2_654_435_761;
  const draw = new RandExp(rules.pattern!);
  draw.max = 8;
  draw.randInt = (low: number, high: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return low + (state % (high - low + 1));
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const value = draw.gen();
    if (value.length > 0 && value.length <= maxLength && keepsRules(rules, value)) return value;
  }
  throw new Error(
    `no sample of ${maxLength} characters or fewer matches the pattern ${rules.pattern} and its other rules: simplify it`,
  );
}

/** A value of a field with rules, the seed's own where the rule leaves room; undefined for a field without rules. */
export function ruledSample(definition: FieldDefinition, seed: number): unknown {
  if (!hasRules(definition)) return undefined;
  const rules = rulesOf(definition);
  if (rules.enum) return rules.enum[seed % rules.enum.length];
  if (definition.kind === 'string') {
    if (rules.pattern !== undefined) return patternSample(rules, definition.maxLength ?? 200, seed);
    const plain = `s${seed}-${process.pid}`;
    return plain.padEnd(rules.minLength ?? 0, 'x').slice(0, definition.maxLength);
  }
  const low = rules.minimum ?? Math.max((rules.maximum ?? 0) - 1_000_000, -INT32);
  const high = rules.maximum ?? Math.min(low + 1_000_000, INT32);
  if (definition.kind === 'integer') return Math.ceil(low) + (seed % (Math.floor(high) - Math.ceil(low) + 1));
  return low + ((seed % 997) / 997) * (high - low);
}

/** A value just outside one rule, and which rule it breaks. */
export interface Outside {
  rule: keyof FieldRules;
  value: unknown;
}

/** A string within the kind's length that the pattern refuses (undefined when every candidate matches). */
function unmatched(rules: FieldRules, maxLength: number): string | undefined {
  const length = Math.min(Math.max(rules.minLength ?? 1, 3), maxLength);
  return ['!', '~', ' ', '0', 'a', 'Z', '-']
    .map((character) => character.repeat(length))
    .find((candidate) => !new RegExp(rules.pattern!, 'u').test(candidate));
}

/** Values just outside each of the field's rules (a value of the right kind otherwise). */
export function outsideValues(definition: FieldDefinition): Outside[] {
  const rules = rulesOf(definition);
  const maxLength = definition.maxLength ?? 200;
  const outside: Outside[] = [];
  const step = definition.kind === 'integer' ? 1 : 0.001;
  if (rules.enum) outside.push({ rule: 'enum', value: `not-${rules.enum.join('-')}`.slice(0, maxLength) });
  if (rules.minimum !== undefined && rules.minimum - step >= -INT32)
    outside.push({ rule: 'minimum', value: rules.minimum - step });
  if (rules.maximum !== undefined && rules.maximum + step <= INT32)
    outside.push({ rule: 'maximum', value: rules.maximum + step });
  if (rules.minLength !== undefined && rules.minLength > 1) {
    const short = rules.pattern ? undefined : 'x'.repeat(rules.minLength - 1);
    outside.push({ rule: 'minLength', value: short ?? '!'.repeat(rules.minLength - 1) });
  }
  if (rules.pattern !== undefined) {
    const value = unmatched(rules, maxLength);
    if (value !== undefined) outside.push({ rule: 'pattern', value });
  }
  return outside.filter(({ value }) => !keepsRules(rules, value));
}

/** Whether the engine's database holds this rule itself (SQLite and SQL Server have no regular expressions in a CHECK). */
export function heldByDatabase(engine: string, rule: keyof FieldRules): boolean {
  return rule !== 'pattern' || ['postgres', 'mysql', 'mariadb', 'mongodb'].includes(engine);
}
