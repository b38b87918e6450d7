import { columnOf, type FieldDefinition, type Fields } from './fields';

// Rules across two fields of a record (`checks: ['endsAt > startsAt']`), declared once on the resource. The
// store judges each write by them (a PATCH of one side against the other side as stored: write-rules.ts), the
// relational engines hold them as CHECK constraints and MongoDB in its validator's `$expr`
// (src/stores/sql/migrations/check-constraints.ts, src/stores/mongo/collection-validator.ts), the start-up
// comparison finds them there, the API document states them and the contract suites draw samples that keep
// them and a case just outside each. A side that is empty (null) leaves the rule nothing to compare: it holds.

export const CHECK_OPERATORS = ['<', '<=', '>', '>=', '=', '!='] as const;
export type CheckOperator = (typeof CHECK_OPERATORS)[number];

/** `<field> <operator> <field>`, typed against the resource's fields where it is declared. */
export type CheckDeclaration<Name extends string = string> = `${Name} ${CheckOperator} ${Name}`;

export interface FieldCheck {
  readonly left: string;
  readonly operator: CheckOperator;
  readonly right: string;
  /** As declared: `endsAt > startsAt`. */
  readonly text: string;
}

/** The operator's short name, as constraint and migration names carry it. */
export const OPERATOR_NAMES: Record<CheckOperator, string> = {
  '<': 'lt',
  '<=': 'le',
  '>': 'gt',
  '>=': 'ge',
  '=': 'eq',
  '!=': 'ne',
};
/** The operator seen from the other side: `a > b` is `b < a`. */
const MIRRORED: Record<CheckOperator, CheckOperator> = {
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
  '=': '=',
  '!=': '!=',
};
const WORDS: Record<CheckOperator, string> = {
  '<': 'less than',
  '<=': 'at most',
  '>': 'greater than',
  '>=': 'at least',
  '=': 'equal to',
  '!=': 'different from',
};
const INSTANT_WORDS: Record<CheckOperator, string> = {
  '<': 'before',
  '<=': 'not after',
  '>': 'after',
  '>=': 'not before',
  '=': 'the same instant as',
  '!=': 'another instant than',
};

/** Kinds whose values compare alike on every engine: numbers with numbers, instants, strings by code point, booleans for (in)equality. */
function comparableGroup(definition: FieldDefinition): string | undefined {
  if (definition.kind === 'integer' || definition.kind === 'number') return 'number';
  if (definition.kind === 'string' && !definition.caseInsensitive) return 'string';
  if (definition.kind === 'datetime' || definition.kind === 'boolean') return definition.kind;
  return undefined;
}

/** A declared check read, or undefined when it is not `<field> <operator> <field>`. */
export function parseCheck(text: string): FieldCheck | undefined {
  const match = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*(<=|>=|!=|<|>|=)\s*([A-Za-z][A-Za-z0-9_]*)\s*$/.exec(text);
  if (!match) return undefined;
  return {
    left: match[1]!,
    operator: match[2] as CheckOperator,
    right: match[3]!,
    text: `${match[1]} ${match[2]} ${match[3]}`,
  };
}

/** What is wrong with a declared check, in words (defineResource and the generator refuse it). */
export function checkProblems(fields: Fields, text: string): string[] {
  const check = parseCheck(text);
  if (!check) return [`check '${text}': write <field> <op> <field>, op one of ${CHECK_OPERATORS.join(' ')}`];
  const where = `check '${check.text}'`;
  const problems: string[] = [];
  for (const name of [check.left, check.right])
    if (!(name in fields)) problems.push(`${where}: '${name}' is not one of its fields`);
  if (problems.length > 0) return problems;
  if (check.left === check.right) return [`${where}: compares a field with itself`];
  const [left, right] = [fields[check.left]!, fields[check.right]!];
  const group = comparableGroup(left);
  if (group === undefined || comparableGroup(right) !== group) {
    return [
      `${where}: ${check.left} (${left.kind}) and ${check.right} (${right.kind}) are not of one comparable kind (integer/number, datetime, string, boolean; not text, references or case-insensitive strings)`,
    ];
  }
  if (group === 'boolean' && check.operator !== '=' && check.operator !== '!=')
    problems.push(`${where}: booleans compare with = and != only`);
  return problems;
}

const parsed = new WeakMap<object, readonly FieldCheck[]>();

/** The checks of a resource, read once (every write judges by them). */
export function checksOf(resource: { checks?: readonly string[] }): readonly FieldCheck[] {
  let checks = parsed.get(resource);
  if (!checks) {
    checks = (resource.checks ?? []).map((text) => parseCheck(text)!);
    parsed.set(resource, checks);
  }
  return checks;
}

/** Strings in code-point order, as the databases compare them (JavaScript's `<` compares UTF-16 units). */
function codePointOrder(a: string, b: string): number {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const difference = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return x.length - y.length;
}

/** Whether the values keep the check (an empty side keeps it). */
export function keepsCheck(check: FieldCheck, values: Record<string, unknown>): boolean {
  const [a, b] = [values[check.left], values[check.right]];
  if (a === null || a === undefined || b === null || b === undefined) return true;
  const [x, y] = [a instanceof Date ? a.getTime() : a, b instanceof Date ? b.getTime() : b];
  const order =
    typeof x === 'string' && typeof y === 'string'
      ? codePointOrder(x, y)
      : x === y
        ? 0
        : (x as number) < (y as number)
          ? -1
          : 1;
  switch (check.operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    case '=':
      return order === 0;
    default:
      return order !== 0;
  }
}

/** The check as the other side sees it: `endsAt > startsAt` is `startsAt < endsAt`. */
export function mirrored(check: FieldCheck): FieldCheck {
  const operator = MIRRORED[check.operator];
  return { left: check.right, operator, right: check.left, text: `${check.right} ${operator} ${check.left}` };
}

/** What the check asks of its left side, in words: `must be after startsAt`. */
export function checkInWords(check: FieldCheck, fields: Fields): string {
  const words = fields[check.left]?.kind === 'datetime' ? INSTANT_WORDS : WORDS;
  return `must be ${words[check.operator]} ${check.right}`;
}

/** The check in column terms (`ends_at > starts_at`), as a migration holds it. */
export function inColumns(check: FieldCheck): FieldCheck {
  const [left, right] = [columnOf(check.left), columnOf(check.right)];
  return { left, operator: check.operator, right, text: `${left} ${check.operator} ${right}` };
}

/**
 * The name of the constraint holding a check (in column terms) on the relational engines:
 * `<table>_<left>_<op>_<right>_check` (`bookings_ends_at_gt_starts_at_check`).
 */
export function crossCheckName(table: string, check: FieldCheck): string {
  return `${table}_${check.left}_${OPERATOR_NAMES[check.operator]}_${check.right}_check`;
}

/** The constraint holding a declared check (in field terms) on the relational engines. */
export function checkConstraintOf(table: string, check: FieldCheck): string {
  return crossCheckName(table, inColumns(check));
}
