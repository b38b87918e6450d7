import type { QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';
import type { DataLoss } from './migration';

// Whether a migration marked `destroys` would destroy anything here: a table with rows, a column with a
// value in some row. A table or column that is absent or empty (a fresh database replaying a removed
// module's history, a field dropped before it was ever written) loses nothing, so start-up runs it.

/** What of `destroys` holds data on this database, described (`table notes (rows)`, `column notes.colour (values)`). */
export async function dataAtRisk(queryInterface: QueryInterface, destroys: readonly DataLoss[]): Promise<string[]> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const { rows: statements } = ddlOf(queryInterface.sequelize.getDialect());
  const held: string[] = [];
  for (const { table, column } of destroys) {
    if (!(await queryInterface.tableExists(table))) continue;
    if (column !== undefined && !(column in (await queryInterface.describeTable(table)))) continue;
    const where = column === undefined ? '' : ` WHERE ${quote(column)} IS NOT NULL`;
    const sql = statements.firstRows(`1 AS ${quote('held')}`, `${quote(table)}${where}`, 1);
    const [rows] = await queryInterface.sequelize.query(sql);
    if ((rows as unknown[]).length > 0)
      held.push(column === undefined ? `table ${table} (rows)` : `column ${table}.${column} (values)`);
  }
  return held;
}
