import type { QueryInterface } from 'sequelize';
import { select } from '../select';
import { replaceInOneAlter, type CheckDdl } from './check-ddl';

// MySQL and MariaDB: patterns as REGEXP, and backslashes in a literal doubled (they read them as escapes: a
// pattern's `\d` would lose its backslash). Their DDL is not transactional, so what takes several actions takes
// them in ONE ALTER TABLE, which applies all of them or none: a CHECK replaced (a refused ADD keeps the old
// rule), and a column renamed under its CHECK, which MySQL 8.0.16+ refuses otherwise (error 3959,
// ER_DEPENDENT_BY_CHECK_CONSTRAINT; MariaDB does not): the CHECK is dropped, the column renamed and the CHECK
// added under its new name in the same statement, so the rule never lapses, and nothing is left to rename.

export const mysqlChecks: CheckDdl = {
  literal: (value) => `'${value.replace(/'/g, "''").replace(/\\/g, '\\\\')}'`,
  minLength: (column, least) => `CHAR_LENGTH(${column}) >= ${least}`,
  patternOperator: 'REGEXP',
  async constraints(queryInterface, table) {
    const rows = await select(
      queryInterface,
      'SELECT c.CONSTRAINT_NAME AS `name`, c.CHECK_CLAUSE AS `definition` FROM information_schema.CHECK_CONSTRAINTS c JOIN information_schema.TABLE_CONSTRAINTS t ' +
        "ON t.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA AND t.CONSTRAINT_NAME = c.CONSTRAINT_NAME AND t.CONSTRAINT_TYPE = 'CHECK' WHERE c.CONSTRAINT_SCHEMA = DATABASE() AND t.TABLE_NAME = :table",
      { table },
    );
    return new Map(rows.map((row) => [String(row.name), String(row.definition)]));
  },
  replace: replaceInOneAlter,
  rename: async () => undefined,
};

/** A CHECK clause as the server shows it, with the backquoted column `from` now `to`. */
export function renamedClause(clause: string, from: string, to: string): string {
  return clause.split(`\`${from}\``).join(`\`${to}\``);
}

/**
 * The statement renaming column `from` to `to`; `check`: the column's own CHECK (its name, the clause as the
 * server shows it, its name after the rename), set aside and made again in the same statement.
 */
export function renameColumnStatement(
  queryInterface: QueryInterface,
  table: string,
  from: string,
  to: string,
  check?: { name: string; clause: string; renamed: string },
): string {
  const quote = (identifier: string) => queryInterface.quoteIdentifier(identifier);
  const rename = `RENAME COLUMN ${quote(from)} TO ${quote(to)}`;
  const actions = check
    ? [
        `DROP CONSTRAINT ${quote(check.name)}`,
        rename,
        `ADD CONSTRAINT ${quote(check.renamed)} CHECK (${renamedClause(check.clause, from, to)})`,
      ]
    : [rename];
  return `ALTER TABLE ${quote(table)} ${actions.join(', ')}`;
}
