import type { QueryInterface } from 'sequelize';

// MySQL's and MariaDB's rename of a column under a CHECK. MySQL 8.0.16+ refuses to rename a column a CHECK
// uses (error 3959, ER_DEPENDENT_BY_CHECK_CONSTRAINT; MariaDB does not), and their DDL is not transactional:
// the CHECK is dropped, the column renamed and the CHECK added under its new name in ONE ALTER TABLE, which
// applies all of it or none, so the rule never lapses.

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
