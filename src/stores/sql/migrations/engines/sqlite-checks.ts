import type { QueryInterface } from 'sequelize';
import { partsOf, rebuildSqlite } from '../sqlite-rebuild';
import { select } from '../select';
import { constraintPart, type CheckDdl } from './check-ddl';

// SQLite cannot ALTER a CHECK: its table is rebuilt with the constraint among its definitions
// (sqlite-rebuild.ts), which are also where the constraints are read from. It has no regular expressions in a
// CHECK, and stores 2.5 in an INTEGER column (its affinity converts only what it can without loss), where the
// other engines' column types refuse it: an integer column's CHECK holds the kind too (NULL passes, as in a
// CHECK elsewhere). checkSignature (check-catalog.ts) leaves that guard out, so a table made before it starts.

const isConstraint = (part: string, name: string) => new RegExp(`^CONSTRAINT [\`"[]?${name}[\`"\\]]?\\s`).test(part);

export const sqliteChecks: CheckDdl = {
  literal: (value) => `'${value.replace(/'/g, "''")}'`,
  minLength: (column, least) => `length(${column}) >= ${least}`,
  integerKind: (column) => `typeof(${column}) IN ('integer', 'null')`,
  async constraints(queryInterface: QueryInterface, table: string) {
    const [row] = await select(queryInterface, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :table`, {
      table,
    });
    const found = new Map<string, string>();
    for (const part of row ? partsOf(String(row.sql)) : []) {
      const match = /^CONSTRAINT [`"[]?(\w+)[`"\]]? CHECK \((.*)\)$/s.exec(part);
      if (match) found.set(match[1]!, match[2]!);
    }
    return found;
  },
  async replace(queryInterface, table, name, exists, expression) {
    if (!exists && !expression) return;
    await rebuildSqlite(queryInterface, table, (parts) => [
      ...parts.filter((part) => !isConstraint(part, name)),
      ...(expression ? [constraintPart(queryInterface, name, expression)] : []),
    ]);
  },
  async rename(queryInterface, table, before, after, clause) {
    await rebuildSqlite(queryInterface, table, (parts) =>
      parts.map((part) => (isConstraint(part, before) ? constraintPart(queryInterface, after, clause) : part)),
    );
  },
};
