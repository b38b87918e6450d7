import type { QueryInterface } from 'sequelize';
import { foldedColumnOf } from '../../kit/fields';
import { ddlOf } from './engines/engine-ddl';
import { select } from './select';

// A field made required or optional on a table that may hold rows (`npm run new:field -- <module> <field>
// --required|--optional`): only whether the column takes null changes; its type, binary collation, default,
// indexes, unique keys and foreign key with its ON DELETE rule stay as they are. A case-insensitive field's
// `_folded` shadow follows it (the `_search` shadow always takes null).

export class RowsWithoutValueError extends Error {
  constructor(table: string, column: string, count: number) {
    super(
      `cannot make ${table}.${column} required: ${count} rows hold no value for it; give them one (a migration of your own, or by hand), then run the migrations again`,
    );
    this.name = 'RowsWithoutValueError';
  }
}

async function nullCount(queryInterface: QueryInterface, table: string, column: string): Promise<number> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const [row] = await select(
    queryInterface,
    `SELECT COUNT(*) AS ${quote('count')} FROM ${quote(table)} WHERE ${quote(column)} IS NULL`,
  );
  return Number(row?.count ?? 0);
}

/**
 * Makes a field's column take null (`required` false) or refuse it (`required` true). Making it required
 * over rows that hold no value stops with RowsWithoutValueError — or, with `ifPossible` (a down undoing
 * `--optional`), leaves it taking null, which the start-up comparison then names.
 */
export async function setFieldRequired(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  required: boolean,
  options: { ifPossible?: boolean } = {},
): Promise<void> {
  const described = await queryInterface.describeTable(table);
  for (const name of [column, foldedColumnOf(column)].filter((candidate) => candidate in described)) {
    if (described[name]!.allowNull === !required) continue; // already so (a retry after a half-applied run)
    if (required) {
      const count = await nullCount(queryInterface, table, name);
      if (count > 0) {
        if (options.ifPossible) return;
        throw new RowsWithoutValueError(table, name, count);
      }
    }
    await ddlOf(queryInterface.sequelize.getDialect()).columns.setNullability(queryInterface, table, name, required);
  }
}
