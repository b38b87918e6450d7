import type { QueryInterface } from 'sequelize';

// What each engine's CHECK constraints are made of, and how each makes, replaces, renames and reads them: one
// object per engine (sqlite-checks.ts, postgres-checks.ts, mysql-checks.ts, mssql-checks.ts) behind this
// interface, so check-constraints.ts and check-catalog.ts hold no engine branch.

export interface CheckDdl {
  /** A string literal in a CHECK's expression. */
  literal(value: string): string;
  /** The part of a CHECK holding a minimum length in characters. */
  minLength(quotedColumn: string, least: number): string;
  /** The operator of a pattern in a CHECK (`~`, `REGEXP`); none where the engine has no regular expressions there. */
  readonly patternOperator?: string;
  /** What an integer column's CHECK adds to hold the kind, where the column type does not (SQLite). */
  integerKind?(quotedColumn: string): string;
  /** The table's CHECK constraints: name → the definition as the engine shows it. */
  constraints(queryInterface: QueryInterface, table: string): Promise<Map<string, string>>;
  /** Makes the constraint `name` say `expression` (undefined: none); `exists`: whether it is there now. */
  replace(
    queryInterface: QueryInterface,
    table: string,
    name: string,
    exists: boolean,
    expression: string | undefined,
  ): Promise<void>;
  /** After its column was renamed, the constraint `before` (saying `clause` now) takes the name `after`. */
  rename(queryInterface: QueryInterface, table: string, before: string, after: string, clause: string): Promise<void>;
}

/** `CONSTRAINT <name> CHECK (<expression>)`, as a table's definition and ALTER TABLE … ADD write it. */
export function constraintPart(queryInterface: QueryInterface, name: string, expression: string): string {
  return `CONSTRAINT ${queryInterface.quoteIdentifier(name)} CHECK (${expression})`;
}

/**
 * One constraint's DROP and/or ADD as ONE statement, for an engine that takes several actions in an ALTER: a
 * refused ADD (a row breaks it) keeps the old rule, even where DDL is not transactional (MySQL/MariaDB).
 */
export async function replaceInOneAlter(
  queryInterface: QueryInterface,
  table: string,
  name: string,
  exists: boolean,
  expression: string | undefined,
): Promise<void> {
  const actions = [
    ...(exists ? [`DROP CONSTRAINT ${queryInterface.quoteIdentifier(name)}`] : []),
    ...(expression === undefined ? [] : [`ADD ${constraintPart(queryInterface, name, expression)}`]),
  ];
  if (actions.length > 0)
    await queryInterface.sequelize.query(`ALTER TABLE ${queryInterface.quoteIdentifier(table)} ${actions.join(', ')}`);
}
