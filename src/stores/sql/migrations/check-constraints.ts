import type { QueryInterface } from 'sequelize';
import { crossCheckName, parseCheck, type FieldCheck } from '../../kit/field-checks';
import { allowedInWords, checkConstraintName, type FieldRules } from '../../kit/field-rules';

export { checkConstraintName };
import { checkConstraintsOf } from './check-catalog';
import { ddlOf } from './engines/engine-ddl';
import { select } from './select';

// A field's rules (field-rules.ts) held by the database: one CHECK constraint per column, named
// `<table>_<column>_check` so that a later change, the start-up comparison and the error mapping find it.
// Every engine holds enum, minimum, maximum and minLength; pattern is held where the engine has regular
// expressions in a CHECK (PostgreSQL `~`, MySQL/MariaDB REGEXP): SQLite and SQL Server have none, there the
// request validation alone holds it (docs/databases.md, "Rules"). How each engine spells, makes, replaces and
// renames a CHECK is its file's under engines/ (check-ddl.ts).

/** The column a constraint named by checkConstraintName belongs to, or undefined for another name. */
export function checkedColumn(table: string, constraint: string): string | undefined {
  return constraint.startsWith(`${table}_`) && constraint.endsWith('_check')
    ? constraint.slice(table.length + 1, -'_check'.length)
    : undefined;
}

/** The rules this engine's CHECK can hold (pattern only where it has regular expressions). */
export function heldRules(dialect: string, rules: FieldRules): FieldRules {
  const { pattern, ...rest } = rules;
  return pattern !== undefined && ddlOf(dialect).checks.patternOperator ? rules : rest;
}

/** The CHECK expression of the rules on `column` (quoted by the caller's engine), or undefined when there is none to hold. */
export function checkExpression(dialect: string, quotedColumn: string, rules: FieldRules): string | undefined {
  const checks = ddlOf(dialect).checks;
  const held = heldRules(dialect, rules);
  const parts: string[] = [];
  if (held.enum) parts.push(`${quotedColumn} IN (${held.enum.map((value) => checks.literal(value)).join(', ')})`);
  if (held.minimum !== undefined) parts.push(`${quotedColumn} >= ${held.minimum}`);
  if (held.maximum !== undefined) parts.push(`${quotedColumn} <= ${held.maximum}`);
  if (held.minLength !== undefined) parts.push(checks.minLength(quotedColumn, held.minLength));
  if (held.pattern !== undefined)
    parts.push(`${quotedColumn} ${checks.patternOperator} ${checks.literal(held.pattern)}`);
  return parts.length === 0 ? undefined : parts.map((part) => `(${part})`).join(' AND ');
}

/** Makes the table's constraint `name` say `expression` (none: no constraint), as its engine does (engines/). */
async function replaceNamedCheck(
  queryInterface: QueryInterface,
  table: string,
  name: string,
  expression: string | undefined,
): Promise<void> {
  const exists = (await checkConstraintsOf(queryInterface, table)).has(name);
  await ddlOf(queryInterface.sequelize.getDialect()).checks.replace(queryInterface, table, name, exists, expression);
}

/** The CHECK expression of `rules` on a table's column, with the kind where the engine's column type does not hold it. */
async function columnCheckExpression(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  rules: FieldRules,
): Promise<string | undefined> {
  const dialect = queryInterface.sequelize.getDialect();
  const quoted = queryInterface.quoteIdentifier(column);
  const expression = checkExpression(dialect, quoted, rules);
  const integerKind = ddlOf(dialect).checks.integerKind;
  if (expression === undefined || !integerKind) return expression;
  const type = (await queryInterface.describeTable(table))[column]?.type ?? '';
  return /^INTEGER$/i.test(type) ? `${expression} AND (${integerKind(quoted)})` : expression;
}

/**
 * Makes the column's CHECK constraint say `rules` (none: no constraint): the old one dropped, the new one
 * added, which refuses while a row breaks it. Run by createResourceTable, addFieldColumns and the
 * migrations `npm run new:field` writes for a rule change (setFieldRules).
 */
export async function replaceCheckConstraint(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  rules: FieldRules,
): Promise<void> {
  const expression = await columnCheckExpression(queryInterface, table, column, rules);
  await replaceNamedCheck(queryInterface, table, checkConstraintName(table, column), expression);
}

/** A check across two columns (`ends_at > starts_at`) read, or an Error naming it. */
function columnCheck(text: string): FieldCheck {
  const check = parseCheck(text);
  if (!check) throw new Error(`check '${text}': write <column> <op> <column>`);
  return check;
}

/** The CHECK expression of a check across columns: a row with either side null passes it, as a CHECK lets an unknown pass. */
export function crossCheckExpression(queryInterface: QueryInterface, check: FieldCheck): string {
  return `${queryInterface.quoteIdentifier(check.left)} ${check.operator === '!=' ? '<>' : check.operator} ${queryInterface.quoteIdentifier(check.right)}`;
}

/**
 * Adds the CHECK constraint of a check across two columns (`'ends_at > starts_at'`, what `--check` writes) to
 * a table that may hold rows: the rows breaking it are counted first, and a non-zero count refuses, naming it,
 * before anything is altered.
 */
export async function addFieldCheck(queryInterface: QueryInterface, table: string, text: string): Promise<void> {
  const check = columnCheck(text);
  const expression = crossCheckExpression(queryInterface, check);
  const [row] = await select(
    queryInterface,
    `SELECT COUNT(*) AS ${queryInterface.quoteIdentifier('breaking')} FROM ${queryInterface.quoteIdentifier(table)} WHERE NOT (${expression})`,
  );
  const breaking = Number(row?.breaking ?? 0);
  if (breaking > 0)
    throw new Error(
      `${breaking === 1 ? '1 row' : `${breaking} rows`} of ${table} ${breaking === 1 ? 'breaks' : 'break'} ${check.text}: change ${breaking === 1 ? 'it' : 'them'} first, then run the migration again`,
    );
  await replaceNamedCheck(queryInterface, table, crossCheckName(table, check), expression);
}

/** Removes the CHECK constraint of a check across two columns (the down of addFieldCheck, or `--drop-check`). */
export async function removeFieldCheck(queryInterface: QueryInterface, table: string, text: string): Promise<void> {
  await replaceNamedCheck(queryInterface, table, crossCheckName(table, columnCheck(text)), undefined);
}

/** How many rows hold a value the rules refuse (null is the column's nullability's business). */
export async function countBreakingRows(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  rules: FieldRules,
): Promise<number> {
  const quoted = queryInterface.quoteIdentifier(column);
  const expression = await columnCheckExpression(queryInterface, table, column, rules);
  if (!expression) return 0;
  const [row] = await select(
    queryInterface,
    `SELECT COUNT(*) AS ${queryInterface.quoteIdentifier('breaking')} FROM ${queryInterface.quoteIdentifier(table)} WHERE ${quoted} IS NOT NULL AND NOT (${expression})`,
  );
  return Number(row?.breaking ?? 0);
}

/**
 * A rule change on a table that may hold rows (what `npm run new:field -- <module> <field> --enum …|--range …`
 * writes): the rows breaking the new rules are counted first, and a non-zero count refuses the change,
 * naming it, before anything is altered.
 */
export async function setFieldRules(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  rules: FieldRules,
): Promise<void> {
  const breaking = await countBreakingRows(queryInterface, table, column, rules);
  if (breaking > 0)
    throw new Error(
      `${breaking === 1 ? '1 row' : `${breaking} rows`} of ${table} ${breaking === 1 ? 'holds' : 'hold'} a ${column} that is not ${allowedInWords(rules)}: change ${breaking === 1 ? 'it' : 'them'} first, then run the migration again`,
    );
  await replaceCheckConstraint(queryInterface, table, column, rules);
}

/**
 * After a column is renamed, its constraint takes the new column's name (the engines have rewritten the
 * expression already): PostgreSQL RENAME CONSTRAINT, SQL Server sp_rename, SQLite a rebuild with the
 * definition renamed. MySQL/MariaDB moved it in the rename's own statement (engines/mysql-checks.ts).
 */
export async function renameCheckConstraint(
  queryInterface: QueryInterface,
  table: string,
  from: string,
  to: string,
): Promise<void> {
  const [before, after] = [checkConstraintName(table, from), checkConstraintName(table, to)];
  const clause = (await checkConstraintsOf(queryInterface, table)).get(before);
  if (clause !== undefined)
    await ddlOf(queryInterface.sequelize.getDialect()).checks.rename(queryInterface, table, before, after, clause);
}
