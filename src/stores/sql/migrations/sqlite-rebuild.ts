import type { QueryInterface } from 'sequelize';
import { select } from './select';

// SQLite's ALTER TABLE cannot drop a column a foreign key uses, add a NOT NULL column, or change whether a
// column takes null: such a change rebuilds the table the documented twelve-step way, from the table's own
// definition (every other column, its type, ON DELETE rule and every index as they were), foreign keys off
// meanwhile and checked after. Never Sequelize's rebuild, which drops the indexes and ON DELETE rules.

/** Whether a column definition of a CREATE TABLE (`\`name\` VARCHAR(200) NOT NULL`) is the column's. */
export function definesColumn(part: string, column: string): boolean {
  return new RegExp(`^[\`"\\[]?${column}[\`"\\]]?\\s`).test(part);
}

/** The column definitions and constraints of a CREATE TABLE statement, split at its top-level commas. */
export function partsOf(create: string): string[] {
  const open = create.indexOf('(');
  const close = create.lastIndexOf(')');
  const parts: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let position = open + 1; position < close; position += 1) {
    const character = create[position];
    if (character === '(') depth += 1;
    else if (character === ')') depth -= 1;
    else if (character === ',' && depth === 0) {
      parts.push(create.slice(start, position).trim());
      start = position + 1;
    }
  }
  parts.push(create.slice(start, close).trim());
  return parts;
}

/**
 * Rebuilds `table` with its definitions as `edit` makes them (the rows copied, `without` left out of the
 * copy), then its indexes as they were: in one transaction, so a failure at any step (a copy refused by
 * the new definition, a broken foreign key, the process killed) leaves the table as it was, and a retry
 * starts afresh (a scratch table some earlier run left is dropped first). Foreign keys are switched off
 * outside the transaction (SQLite ignores the pragma inside one) and checked inside it, before COMMIT.
 */
export async function rebuildSqlite(
  queryInterface: QueryInterface,
  table: string,
  edit: (parts: string[]) => string[],
  without?: string,
): Promise<void> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const run = (sql: string) => queryInterface.sequelize.query(sql);
  const objects = (await select(
    queryInterface,
    `SELECT type, name, sql FROM sqlite_master WHERE tbl_name = :table AND sql IS NOT NULL`,
    { table },
  )) as { type: string; name: string; sql: string }[];
  const parts = edit(partsOf(objects.find((object) => object.type === 'table')!.sql));
  const columns = Object.keys(await queryInterface.describeTable(table))
    .filter((name) => name !== without)
    .map(quote)
    .join(', ');
  const scratch = `${table}__rebuilt`;
  const [pragma] = await select(queryInterface, 'PRAGMA foreign_keys');
  const enforced = Number(pragma?.foreign_keys ?? 0) === 1;
  if (enforced) await run('PRAGMA foreign_keys = OFF');
  try {
    await run('BEGIN IMMEDIATE');
    try {
      await run(`DROP TABLE IF EXISTS ${quote(scratch)}`);
      await run(`CREATE TABLE ${quote(scratch)} (${parts.join(', ')})`);
      await run(`INSERT INTO ${quote(scratch)} (${columns}) SELECT ${columns} FROM ${quote(table)}`);
      await run(`DROP TABLE ${quote(table)}`);
      await run(`ALTER TABLE ${quote(scratch)} RENAME TO ${quote(table)}`);
      for (const index of objects.filter((object) => object.type === 'index')) await run(index.sql);
      const violations = await select(queryInterface, `PRAGMA foreign_key_check(${quote(table)})`);
      if (violations.length > 0)
        throw new Error(`rebuilding ${table} would break ${violations.length} foreign keys: left as it was`);
      await run('COMMIT');
    } catch (error) {
      await run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    if (enforced) await run('PRAGMA foreign_keys = ON');
  }
}
