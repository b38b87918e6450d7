import { select } from '../select';
import { replaceInOneAlter, type CheckDdl } from './check-ddl';

// PostgreSQL: patterns as `~`; a rename rewrites the expression and RENAME CONSTRAINT follows; the catalog's
// pg_get_constraintdef shows a definition as PostgreSQL rewrote it (casts, `= ANY (ARRAY[…])`).

export const postgresChecks: CheckDdl = {
  literal: (value) => `'${value.replace(/'/g, "''")}'`,
  minLength: (column, least) => `char_length(${column}) >= ${least}`,
  patternOperator: '~',
  async constraints(queryInterface, table) {
    const rows = await select(
      queryInterface,
      `SELECT c.conname AS "name", pg_get_constraintdef(c.oid) AS "definition" FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace WHERE c.contype = 'c' AND t.relname = :table AND n.nspname = current_schema()`,
      { table },
    );
    return new Map(rows.map((row) => [String(row.name), String(row.definition)]));
  },
  replace: replaceInOneAlter,
  async rename(queryInterface, table, before, after) {
    const quote = (name: string) => queryInterface.quoteIdentifier(name);
    await queryInterface.sequelize.query(
      `ALTER TABLE ${quote(table)} RENAME CONSTRAINT ${quote(before)} TO ${quote(after)}`,
    );
  },
};
