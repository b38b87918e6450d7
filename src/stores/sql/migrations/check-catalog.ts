import type { QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';

// The CHECK constraints as each engine holds and shows them: read from its catalog (SQLite: the table's own
// definition), and compared by what they say rather than how the engine rewrote them (check-drift.ts).

/** SQLite's guard of an integer column's kind (engines/sqlite-checks.ts), left out of a comparison. */
const SQLITE_WHOLE_PATTERN = /\s+AND\s+\(typeof\([^)]*\) IN \('integer', 'null'\)\)/gi;

/** The CHECK constraints of a table: name → the definition as the engine shows it. */
export function checkConstraintsOf(queryInterface: QueryInterface, table: string): Promise<Map<string, string>> {
  return ddlOf(queryInterface.sequelize.getDialect()).checks.constraints(queryInterface, table);
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
