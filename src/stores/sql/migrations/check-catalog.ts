import type { QueryInterface } from 'sequelize';
import { partsOf } from './sqlite-rebuild';
import { select } from './table-schema';

// The CHECK constraints as each engine holds and shows them: read from its catalog (SQLite: the table's own
// definition), and compared by what they say rather than how the engine rewrote them (check-drift.ts).

/** SQLite's guard of an integer column's kind (check-constraints.ts), left out of a comparison. */
const SQLITE_WHOLE_PATTERN = /\s+AND\s+\(typeof\([^)]*\) IN \('integer', 'null'\)\)/gi;

/** The CHECK constraints of a table: name → the definition as the engine shows it. */
export async function checkConstraintsOf(queryInterface: QueryInterface, table: string): Promise<Map<string, string>> {
  const dialect = queryInterface.sequelize.getDialect();
  if (dialect === 'sqlite') {
    const [row] = await select(queryInterface, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :table`, {
      table,
    });
    const found = new Map<string, string>();
    for (const part of row ? partsOf(String(row.sql)) : []) {
      const match = /^CONSTRAINT [`"[]?(\w+)[`"\]]? CHECK \((.*)\)$/s.exec(part);
      if (match) found.set(match[1]!, match[2]!);
    }
    return found;
  }
  const sql: Record<string, string> = {
    postgres: `SELECT c.conname AS "name", pg_get_constraintdef(c.oid) AS "definition" FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
               JOIN pg_namespace n ON n.oid = t.relnamespace WHERE c.contype = 'c' AND t.relname = :table AND n.nspname = current_schema()`,
    mysql:
      'SELECT c.CONSTRAINT_NAME AS `name`, c.CHECK_CLAUSE AS `definition` FROM information_schema.CHECK_CONSTRAINTS c JOIN information_schema.TABLE_CONSTRAINTS t ' +
      "ON t.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA AND t.CONSTRAINT_NAME = c.CONSTRAINT_NAME AND t.CONSTRAINT_TYPE = 'CHECK' WHERE c.CONSTRAINT_SCHEMA = DATABASE() AND t.TABLE_NAME = :table",
    mssql:
      'SELECT name AS [name], definition AS [definition] FROM sys.check_constraints WHERE parent_object_id = OBJECT_ID(:table)',
  };
  const rows = await select(queryInterface, sql[dialect === 'mariadb' ? 'mysql' : dialect]!, { table });
  return new Map(rows.map((row) => [String(row.name), String(row.definition)]));
}

/**
 * What a CHECK definition says, whatever way the engine rewrote it (PostgreSQL's `= ANY (ARRAY[…])`, casts,
 * parentheses): its literals, in order, identifiers and operators left out. Two definitions of the same rules
 * on one engine give the same signature; different values or bounds do not.
 */
export function checkSignature(definition: string): string {
  const literals: string[] = [];
  const rest = definition.replace(SQLITE_WHOLE_PATTERN, '').replace(/N?'((?:[^']|'')*)'/g, (_match, text: string) => {
    literals.push(text.replace(/''/g, "'").replace(/\\\\/g, '\\'));
    return ' ';
  });
  const unquoted = rest.replace(/[`"[][^`"\]]*[`"\]]/g, ' ').replace(/[A-Za-z_][A-Za-z0-9_$]*/g, ' ');
  for (const match of unquoted.matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) literals.push(match[0]);
  return literals
    .map((literal) => (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(literal) ? String(Number(literal)) : literal))
    .join('|');
}

/**
 * What a check across columns says, however the engine shows it: quotes, brackets, parentheses, spacing, `!=`,
 * and the casts PostgreSQL writes out (`(code)::text < (alt)::text`, `(seats)::double precision >= price`).
 */
export function crossCheckSignature(definition: string): string {
  const uncast = definition.toLowerCase().replace(/::[a-z_]+(?: [a-z_]+)*(?:\(\d+(?:,\s*\d+)?\))?/g, '');
  return uncast
    .replace(/^\s*check\b/, '')
    .replace(/[`"[\]()\s]/g, '')
    .replace(/!=/g, '<>');
}
