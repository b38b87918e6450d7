import type { ModelAttributeColumnOptions, QueryInterface } from 'sequelize';
import { listIndexName } from '../../kit/list-indexes';
import { shadowColumnsOf } from '../../kit/shadows';
import { addColumnChecks, fieldColumns } from './resource-columns';
import { addIndexIfMissing } from './schema-steps';
import {
  blocking,
  changeMssqlColumn,
  columnDependants,
  dropDependants,
  NO_DEPENDANTS,
  renamesOf,
  restoreDependants,
} from './mssql-dependants';
import { uniqueKeyColumns, uniqueKeyName } from './unique-key';
import { definesColumn, rebuildSqlite } from './sqlite-rebuild';
import { renameCheckConstraint, replaceCheckConstraint } from './check-constraints';
import { ddlOf } from './engines/engine-ddl';
import { indexesOf, select } from './table-schema';

// Renaming and dropping a field's column(s) on a table that holds rows, keeping everything else as a fresh
// create would have it (what `npm run new:field -- <module> <field> --rename|--drop` writes):
//   - the column is renamed in place (ALTER TABLE … RENAME COLUMN; SQL Server sp_rename): its type, its
//     binary collation, its foreign key with the ON DELETE rule and the indexes on it stay; never Sequelize's
//     renameColumn, which rebuilds a SQLite table without its indexes and ON DELETE and restates the
//     column on MySQL/MariaDB with the table's default collation;
//   - the indexes the kit names after columns (list indexes, unique keys, a reference's index) are renamed to
//     the names a fresh create gives them;
//   - a drop removes the field's indexes, unique keys and foreign key first, then the column(s).
// A field's shadows (`<column>_folded`, `<column>_search`) go with it. Each step can run again after a
// half-applied run (MySQL/MariaDB DDL is not transactional).

type Dialect = ReturnType<QueryInterface['sequelize']['getDialect']>;

const dialectOf = (queryInterface: QueryInterface): Dialect => queryInterface.sequelize.getDialect();

async function run(queryInterface: QueryInterface, sql: string): Promise<void> {
  await queryInterface.sequelize.query(sql);
}

/** The name a fresh create gives an index on `columns`, if `name` is one the kit derives from `before`; else `name`. */
export function renamedIndexName(
  table: string,
  name: string,
  before: readonly string[],
  columns: readonly string[],
): string {
  if (name === listIndexName(table, before)) return listIndexName(table, columns);
  if (name === uniqueKeyName(table, uniqueKeyColumns(before))) return uniqueKeyName(table, uniqueKeyColumns(columns));
  if (name === `${table}_${before.join('_')}`) return `${table}_${columns.join('_')}`;
  return name;
}

/**
 * Renames a field's column `from` to `to` (and its shadows), keeping its type, collation, foreign
 * key, on-delete rule and indexes; the kit's index names follow. Its own inverse: down renames back.
 */
export async function renameFieldColumn(
  queryInterface: QueryInterface,
  table: string,
  from: string,
  to: string,
): Promise<void> {
  const described = await queryInterface.describeTable(table);
  const renamedShadows = shadowColumnsOf(to);
  const pairs = [
    [from, to] as [string, string],
    ...shadowColumnsOf(from).map((shadow, index): [string, string] => [shadow, renamedShadows[index]]),
  ].filter(([old]) => old in described);
  // SQL Server: what sp_rename does not carry (computed lengths, CHECK and DEFAULT constraints, the unique keys
  // over the lengths) is set aside and made again under the new names (mssql-dependants.ts).
  const aside =
    dialectOf(queryInterface) === 'mssql'
      ? blocking(
          await columnDependants(
            queryInterface,
            table,
            pairs.map(([old]) => old),
          ),
          'rename',
        )
      : NO_DEPENDANTS;
  await dropDependants(queryInterface, table, aside);
  const columns = ddlOf(dialectOf(queryInterface)).columns;
  for (const [old, next] of pairs) await columns.renameColumn(queryInterface, table, old, next);
  for (const index of await indexesOf(queryInterface, table)) {
    const before = index.columns.map((column) => pairs.find(([, next]) => next === column)?.[0] ?? column);
    const name = renamedIndexName(table, index.name, before, index.columns);
    if (name !== index.name) await columns.renameIndex(queryInterface, table, index.name, name);
  }
  await restoreDependants(queryInterface, table, aside, renamesOf(table, pairs), (index, columns) =>
    renamedIndexName(table, index.name, index.columns, columns),
  );
  await renameCheckConstraint(queryInterface, table, from, to);
  if (dialectOf(queryInterface) === 'postgres') {
    // PostgreSQL named the foreign key after the column when the table was made: the name follows too.
    const [rows] = await queryInterface.sequelize.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = to_regclass(:table) AND conname = :name`,
      { replacements: { table, name: `${table}_${from}_fkey` } },
    );
    if ((rows as unknown[]).length > 0)
      await run(
        queryInterface,
        `ALTER TABLE ${queryInterface.quoteIdentifier(table)} RENAME CONSTRAINT ${queryInterface.quoteIdentifier(`${table}_${from}_fkey`)} TO ${queryInterface.quoteIdentifier(`${table}_${to}_fkey`)}`,
      );
  }
}

/** The names of the foreign key constraints on `column` (MySQL/MariaDB drop them before dropping the column; SQL Server's dependants are mssql-dependants.ts's). */
export async function foreignKeyNames(
  queryInterface: QueryInterface,
  table: string,
  column: string,
): Promise<string[]> {
  const sql =
    'SELECT CONSTRAINT_NAME AS name FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME = :column AND REFERENCED_TABLE_NAME IS NOT NULL';
  const [rows] = await queryInterface.sequelize.query(sql, { replacements: { table, column } });
  return (rows as { name: string }[]).map((row) => row.name);
}

/** Drops a field's column (and its shadows) with the indexes, unique keys and foreign key on it. */
export async function dropFieldColumn(queryInterface: QueryInterface, table: string, column: string): Promise<void> {
  const described = await queryInterface.describeTable(table);
  const columns = [column, ...shadowColumnsOf(column)].filter((name) => name in described);
  const dialect = dialectOf(queryInterface);
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  // Its CHECK constraint first (check-constraints.ts): a table constraint naming the column keeps it from going on SQLite and SQL Server.
  if (column in described) await replaceCheckConstraint(queryInterface, table, column, {});
  if (dialect === 'mssql') {
    await changeMssqlColumn(queryInterface, table, columns, 'drop', async () => {
      // Another string's length that only a removed key used goes too, as a fresh create would not have it.
      const indexed = new Set((await indexesOf(queryInterface, table)).flatMap((index) => index.columns));
      for (const length of Object.keys(described).filter(
        (name) =>
          name.endsWith('_bytes') && !indexed.has(name) && !columns.some((column) => name === `${column}_bytes`),
      ))
        await run(queryInterface, `ALTER TABLE ${quote(table)} DROP COLUMN ${quote(length)}`);
      for (const name of columns) await run(queryInterface, `ALTER TABLE ${quote(table)} DROP COLUMN ${quote(name)}`);
    });
    return;
  }
  // The foreign key first: MySQL/MariaDB refuse to drop the index it uses.
  for (const name of columns) {
    if (dialect === 'mysql' || dialect === 'mariadb')
      for (const key of await foreignKeyNames(queryInterface, table, name))
        await run(queryInterface, `ALTER TABLE ${quote(table)} DROP FOREIGN KEY ${quote(key)}`);
  }
  for (const index of await indexesOf(queryInterface, table)) {
    if (index.columns.some((name) => columns.includes(name))) await queryInterface.removeIndex(table, index.name);
  }
  for (const name of columns) {
    if (dialect === 'sqlite') {
      const keys = await select(queryInterface, `PRAGMA foreign_key_list(${queryInterface.quoteIdentifier(table)})`);
      if (keys.some((key) => key.from === name)) {
        await rebuildSqlite(queryInterface, table, (parts) => parts.filter((part) => !definesColumn(part, name)), name);
        continue;
      }
    }
    await run(queryInterface, `ALTER TABLE ${quote(table)} DROP COLUMN ${quote(name)}`);
  }
}

type Columns = Record<string, ModelAttributeColumnOptions>;
type ColumnBuilders = Awaited<ReturnType<typeof fieldColumns>>;

/**
 * Brings back a dropped field's column(s) as declared (a dropped field's down), empty, with the CHECK of
 * their rules: the values went with the drop. A required field on a table that holds rows cannot be NOT NULL then: it comes back nullable, and
 * the start-up comparison names it ("allows null, the field is required") until its rows have values. Its
 * unique keys and list indexes are the caller's next steps.
 */
export async function restoreFieldColumns(
  queryInterface: QueryInterface,
  table: string,
  columns: (c: ColumnBuilders) => Columns,
): Promise<void> {
  const built = columns(await fieldColumns(queryInterface));
  const existing = await queryInterface.describeTable(table);
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  for (const [name, spec] of Object.entries(built)) {
    if (name in existing) continue; // a retry after a half-applied run
    // A required column with a default is filled with it on every engine; one without cannot be NOT NULL over rows.
    const unfilled = spec.allowNull === false && spec.defaultValue === undefined;
    const [row] = unfilled
      ? await select(queryInterface, `SELECT COUNT(*) AS ${quote('count')} FROM ${quote(table)}`)
      : [];
    if (unfilled && Number(row?.count ?? 0) === 0 && dialectOf(queryInterface) === 'sqlite') {
      // SQLite adds no NOT NULL column without a default, even to an empty table: rebuilt with it.
      const generator = (
        queryInterface as unknown as {
          queryGenerator: { addColumnQuery(table: string, key: string, spec: unknown): string };
        }
      ).queryGenerator;
      const statement = generator.addColumnQuery(
        table,
        name,
        (queryInterface.sequelize as unknown as { normalizeAttribute(spec: unknown): unknown }).normalizeAttribute(
          spec,
        ),
      );
      await rebuildSqlite(queryInterface, table, (parts) => [
        ...parts,
        statement.replace(/^ALTER TABLE \S+ ADD /, '').replace(/;$/, ''),
      ]);
    } else {
      await queryInterface.addColumn(
        table,
        name,
        unfilled && Number(row?.count ?? 0) > 0 ? { ...spec, allowNull: true } : spec,
      );
    }
    if (spec.references) await addIndexIfMissing(queryInterface, table, [name], `${table}_${name}`);
  }
  await addColumnChecks(queryInterface, table, built);
}
