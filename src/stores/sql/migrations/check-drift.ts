import type { QueryInterface } from 'sequelize';
import { allowedInWords, hasRules, rulesOf, type FieldRules } from '../../kit/field-rules';
import { fieldEntries, type Resource } from '../../kit/resource';
import { checkConstraintOf, checksOf, inColumns } from '../../kit/field-checks';
import { checkConstraintName, checkedColumn, checkExpression, crossCheckExpression } from './check-constraints';
import { checkConstraintsOf, checkSignature, crossCheckSignature } from './check-catalog';

// The start-up comparison of a table's CHECK constraints with its fields' rules (table-drift.ts runs it):
// each rule the engine can hold has its constraint, saying the same values and bounds (compared by the
// literals the engine kept: check-constraints.ts checkSignature), and no constraint of the kit's naming is
// left for a field without rules. Each difference names the command that writes the fixing migration.

/** The generator flags that declare these rules (`--enum a,b`, `--range 1..5`, …), for a message. */
export function ruleFlags(rules: FieldRules): string {
  const flags: string[] = [];
  if (rules.enum) flags.push(`--enum ${rules.enum.join(',')}`);
  if (rules.minimum !== undefined || rules.maximum !== undefined)
    flags.push(`--range ${rules.minimum ?? ''}..${rules.maximum ?? ''}`);
  if (rules.minLength !== undefined) flags.push(`--min-length ${rules.minLength}`);
  if (rules.pattern !== undefined) flags.push(`--pattern '${rules.pattern}'`);
  return flags.length > 0 ? flags.join(' ') : '--no-rules';
}

export async function checkDifferences(queryInterface: QueryInterface, resource: Resource): Promise<string[]> {
  const dialect = queryInterface.sequelize.getDialect();
  const actual = await checkConstraintsOf(queryInterface, resource.table);
  const problems: string[] = [];
  const fix = (name: string, rules: FieldRules) =>
    `npm run new:field -- ${resource.name} ${name} ${ruleFlags(rules)} writes the migration that sets it`;
  const expected = new Set<string>();
  for (const [name, definition, column] of fieldEntries(resource)) {
    if (!hasRules(definition)) continue;
    const rules = rulesOf(definition);
    const expression = checkExpression(dialect, queryInterface.quoteIdentifier(column), rules);
    if (!expression) continue;
    const constraint = checkConstraintName(resource.table, column);
    expected.add(constraint);
    const held = actual.get(constraint);
    if (held === undefined)
      problems.push(
        `column ${column} has no CHECK constraint ${constraint} (${allowedInWords(rules)}): ${fix(name, rules)}`,
      );
    else if (checkSignature(held) !== checkSignature(expression))
      problems.push(
        `the CHECK constraint ${constraint} says ${held}, the declaration says ${allowedInWords(rules)}: ${fix(name, rules)}`,
      );
  }
  for (const check of checksOf(resource)) {
    const constraint = checkConstraintOf(resource.table, check);
    expected.add(constraint);
    const held = actual.get(constraint);
    const command = `npm run new:field -- ${resource.name} --check '${check.text}' writes the migration that adds it`;
    if (held === undefined)
      problems.push(`the table has no CHECK constraint ${constraint} (${check.text}): ${command}`);
    else if (crossCheckSignature(held) !== crossCheckSignature(crossCheckExpression(queryInterface, inColumns(check))))
      problems.push(`the CHECK constraint ${constraint} says ${held}, the declaration says ${check.text}`);
  }
  for (const constraint of actual.keys()) {
    const column = checkedColumn(resource.table, constraint);
    if (column === undefined || expected.has(constraint)) continue;
    const entry = fieldEntries(resource).find(([, , candidate]) => candidate === column);
    const hint = entry
      ? `: ${fix(entry[0], {})}`
      : `: a check taken out of resource.ts is removed by its migration (npm run new:field -- ${resource.name} --drop-check '<rule>')`;
    problems.push(`the CHECK constraint ${constraint} is not in the declaration${hint}`);
  }
  return problems;
}
