import type { QueryInterface } from 'sequelize';
import { foldedColumnOf } from '../../kit/fields';
import { changeMssqlColumn } from './mssql-dependants';
import { definesColumn, rebuildSqlite } from './sqlite-rebuild';
import { select } from './table-schema';

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

/** MySQL/MariaDB restate the whole column in MODIFY: its type, character set and collation, and default, as the server has them. */
async function modifyMysql(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  required: boolean,
): Promise<void> {
  const [row] = await select(
    queryInterface,
    'SELECT COLUMN_TYPE AS `type`, CHARACTER_SET_NAME AS `charset`, COLLATION_NAME AS `collation`, COLUMN_DEFAULT AS `fallback`, VERSION() AS `version` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME = :column',
    { table, column },
  );
  if (!row) throw new Error(`${table}.${column}: no such column`);
  const charset = row.charset ? ` CHARACTER SET ${String(row.charset)} COLLATE ${String(row.collation)}` : '';
  // MariaDB reports a default as SQL ('text', 0, NULL); MySQL as the bare value.
  const mariadb = /mariadb/i.test(String(row.version));
  const fallback =
    row.fallback === null || row.fallback === 'NULL'
      ? ''
      : ` DEFAULT ${mariadb ? String(row.fallback) : queryInterface.sequelize.escape(String(row.fallback))}`;
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  await queryInterface.sequelize.query(
    `ALTER TABLE ${quote(table)} MODIFY ${quote(column)} ${String(row.type)}${charset} ${required ? 'NOT NULL' : 'NULL'}${fallback}`,
  );
}

/**
 * SQL Server changes nullability with ALTER COLUMN, restating the type and collation, and refuses it while
 * anything depends on the column (an index, a foreign key, a computed length or CHECK constraint): those
 * are set aside around it (mssql-dependants.ts).
 */
async function alterMssql(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  required: boolean,
): Promise<void> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const [row] = await select(
    queryInterface,
    'SELECT DATA_TYPE AS [type], CHARACTER_MAXIMUM_LENGTH AS [length], DATETIME_PRECISION AS [precision], COLLATION_NAME AS [collation] FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = :table AND COLUMN_NAME = :column',
    { table, column },
  );
  if (!row) throw new Error(`${table}.${column}: no such column`);
  const size =
    row.length != null
      ? `(${Number(row.length) === -1 ? 'MAX' : Number(row.length)})`
      : String(row.type).toLowerCase() === 'datetimeoffset'
        ? `(${Number(row.precision)})`
        : '';
  const type = `${String(row.type).toUpperCase()}${size}${row.collation ? ` COLLATE ${String(row.collation)}` : ''}`;
  await changeMssqlColumn(queryInterface, table, [column], 'alter', async () => {
    await queryInterface.sequelize.query(
      `ALTER TABLE ${quote(table)} ALTER COLUMN ${quote(column)} ${type} ${required ? 'NOT NULL' : 'NULL'}`,
    );
  });
}

async function setNullability(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  required: boolean,
): Promise<void> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  switch (queryInterface.sequelize.getDialect()) {
    case 'postgres':
      await queryInterface.sequelize.query(
        `ALTER TABLE ${quote(table)} ALTER COLUMN ${quote(column)} ${required ? 'SET' : 'DROP'} NOT NULL`,
      );
      return;
    case 'mysql':
    case 'mariadb':
      return modifyMysql(queryInterface, table, column, required);
    case 'mssql':
      return alterMssql(queryInterface, table, column, required);
    default:
      return rebuildSqlite(queryInterface, table, (parts) =>
        parts.map((part) => {
          if (!definesColumn(part, column)) return part;
          const relaxed = part.replace(/\s+NOT NULL\b/i, '');
          return required ? `${relaxed} NOT NULL` : relaxed;
        }),
      );
  }
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
    await setNullability(queryInterface, table, name, required);
  }
}
