import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allowedInWords, type FieldRules } from '../../src/stores/kit/field-rules';
import { columnOf } from '../../src/stores/kit/fields';
import { declaredFields } from './field-changes';
import ts from 'typescript';
import { withFieldOption } from './declaration';
import { checkRules, parseEnum, parseRange, RULE_KEYS, ruleOptions, ruleValues } from './rule-forms';
import { declarationFile, nextMigrationNumber, withMigration, type PlannedFile } from './source-edits';
import { parse, stringValue } from './syntax-tree';
import { SpecError, type DefaultValue } from './field-spec';
import { checkModuleName, moduleNames } from './spec';

// npm run new:field -- <module> <field> --enum a,b,c | --range 1..10 | --min-length 3 | --pattern '^[A-Z]+$' | --no-rules
// A rule of an existing field added, widened, narrowed or removed: the declaration's options edited and a
// migration calling setFieldRules, which counts the rows the new rule refuses and stops, naming how many,
// before it changes the table's CHECK constraint (SQLite: the table rebuilt with it). Its down sets the
// rules back. MongoDB's validator follows the declaration when it migrates (collection-validator.ts).

export interface RuleChange {
  enum?: string;
  range?: string;
  minLength?: string;
  pattern?: string;
  /** All the field's rules removed. */
  none?: boolean;
}

export const RULE_OPTIONS = ['--enum', '--range', '--min-length', '--pattern'] as const;

export function givesRuleChange(change: RuleChange): boolean {
  return (
    change.none === true ||
    [change.enum, change.range, change.minLength, change.pattern].some((value) => value !== undefined)
  );
}

const pascal = (word: string) => word[0]!.toUpperCase() + word.slice(1);
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const rulesLiteral = (rules: FieldRules) => `{ ${ruleOptions(rules).join(', ')} }`.replace('{  }', '{}');

/** The rules after the change: each given rule replaces its own, the others stay. */
function changedRules(name: string, type: string, current: FieldRules, change: RuleChange): FieldRules {
  if (change.none) return {};
  const next: Record<string, unknown> = { ...current };
  if (change.enum !== undefined) Object.assign(next, parseEnum(name, change.enum));
  if (change.range !== undefined) {
    if (type !== 'integer' && type !== 'number')
      throw new SpecError(`--range: '${name}' (${type}) is not an integer or number field`);
    delete next.minimum;
    delete next.maximum;
    Object.assign(next, parseRange(name, change.range, type));
  }
  if (change.minLength !== undefined) {
    if (!/^\d+$/.test(change.minLength))
      throw new SpecError(`--min-length ${change.minLength}: a whole number of characters`);
    next.minLength = Number(change.minLength);
  }
  if (change.pattern !== undefined) next.pattern = change.pattern;
  return next as FieldRules;
}

/** The value of an option's expression as written (a literal: string, number, boolean, array of strings), through its syntax tree. */
export function literalValue(text: string): unknown {
  const statement = parse(`(${text});`).statements[0];
  let node = statement && ts.isExpressionStatement(statement) ? statement.expression : undefined;
  while (node && ts.isParenthesizedExpression(node)) node = node.expression;
  if (!node) return undefined;
  if (ts.isArrayLiteralExpression(node)) return node.elements.map((element) => stringValue(element));
  if (
    ts.isPrefixUnaryExpression(node) &&
    node.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(node.operand)
  )
    return -Number(node.operand.text);
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  return stringValue(node);
}

/** The rules of a declared field, from its options as written (DeclaredField.option). */
export function declaredRules(option: Record<string, string>): FieldRules {
  const read = (key: (typeof RULE_KEYS)[number]) => (option[key] === undefined ? undefined : literalValue(option[key]));
  return Object.fromEntries(
    RULE_KEYS.flatMap((key) => (read(key) === undefined ? [] : [[key, read(key)]])),
  ) as FieldRules;
}

/** The declaration with a field's rules set to `rules` (each rule option written, replaced or removed in place). */
export function withRules(source: string, name: string, rules: FieldRules): string {
  return Object.entries(ruleValues(rules)).reduce(
    (edited, [key, value]) => withFieldOption(edited, name, key, value),
    source,
  );
}

function defaultOf(written: string | undefined): DefaultValue | undefined {
  const value = written === undefined ? undefined : literalValue(written);
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** The migration and the edited declaration of a rule change on an existing field. */
export function planRuleChange(
  root: string,
  module: string | undefined,
  fieldName: string | undefined,
  change: RuleChange,
): PlannedFile[] {
  checkModuleName(module);
  if (fieldName === undefined || fieldName.includes(':'))
    throw new SpecError(
      'a rule change names an existing field: npm run new:field -- <module> <field> --enum a,b | --range 1..5 | --min-length 3 | --pattern <re> | --no-rules',
    );
  const file = declarationFile(root, module);
  const source = readFileSync(path.join(root, file), 'utf8');
  const field = declaredFields(source).find((candidate) => candidate.name === fieldName);
  if (!field) throw new SpecError(`'${fieldName}' is not a field of ${module}`);
  const current = declaredRules(field.option);
  const rules = checkRules(
    { name: fieldName, type: field.type, default: defaultOf(field.option.default) },
    changedRules(fieldName, field.type, current, change),
  );
  if (JSON.stringify(rules) === JSON.stringify(current)) throw new SpecError(`'${fieldName}' has these rules already`);
  const { table } = moduleNames(module!);
  const number = nextMigrationNumber(root, module!);
  const constant = `rules${pascal(fieldName)}${number}`;
  const name = `${number}-rules-${kebab(fieldName)}`;
  const said = (value: FieldRules) => allowedInWords(value) || 'no rules';
  const migration = `import { setFieldRules, type SqlMigration } from '../../kit';

// The rules of ${fieldName} on ${table}: ${said(rules)} (were: ${said(current)}). Refused, naming how many, while rows
// break them; the CHECK constraint ${table}_${columnOf(fieldName)}_check says them (MongoDB: the collection's validator,
// from the declaration). Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${name}',
  up: (queryInterface) => setFieldRules(queryInterface, '${table}', '${columnOf(fieldName)}', ${rulesLiteral(rules)}),
  down: (queryInterface) => setFieldRules(queryInterface, '${table}', '${columnOf(fieldName)}', ${rulesLiteral(current)}),
};
`;
  const edited = withMigration(withRules(source, fieldName, rules), constant, name);
  return [
    { path: `src/modules/${module}/migrations/${name}.ts`, content: migration, edit: false },
    { path: file, content: edited, edit: true },
  ];
}
