import type { ModelAttributeColumnOptions, QueryInterface } from 'sequelize';
import { listIndexName } from '../../kit/list-indexes';
import { searchColumnOf, shadowColumnsOf } from '../../kit/shadows';
import { addColumnChecks, fieldColumns } from './resource-columns';
import { addIndexIfMissing } from './schema-steps';
import { uniqueKeyColumns, uniqueKeyName } from './unique-key';
import { renameCheckConstraint, replaceCheckConstraint } from './check-constraints';
import { ddlOf } from './engines/engine-ddl';
import { observeShadowColumns } from './search-index';
import { select } from './select';
import { indexesOf } from './indexes-of';

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
// half-applied run (MySQL/MariaDB DDL is not transactional). How each engine renames, drops and sets aside
// what is in the way is its engines/<engine>-columns.ts's.
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
  const { columns } = ddlOf(queryInterface.sequelize.getDialect());
  const rename = async () => {
    for (const [old, next] of pairs) await columns.renameColumn(queryInterface, table, old, next);
    for (const index of await indexesOf(queryInterface, table)) {
      const before = index.columns.map((column) => pairs.find(([, next]) => next === column)?.[0] ?? column);
      const name = renamedIndexName(table, index.name, before, index.columns);
      if (name !== index.name) await columns.renameIndex(queryInterface, table, index.name, name);
    }
  };
  if (columns.aroundRename)
    await columns.aroundRename(queryInterface, table, pairs, rename, (index, renamed) =>
      renamedIndexName(table, index.name, index.columns, renamed),
    );
  else await rename();
  await renameCheckConstraint(queryInterface, table, from, to);
  await columns.afterRename?.(queryInterface, table, from, to);
  const shadows = pairs.filter(([old]) => old === searchColumnOf(from));
  observeShadowColumns(
    queryInterface,
    table,
    shadows.map(([old]) => old),
    shadows.map(([, next]) => next),
  );
}

/** Drops a field's column (and its shadows) with the indexes, unique keys and foreign key on it. */
export async function dropFieldColumn(queryInterface: QueryInterface, table: string, column: string): Promise<void> {
  const described = await queryInterface.describeTable(table);
  const columns = [column, ...shadowColumnsOf(column)].filter((name) => name in described);
  // Its CHECK constraint first (check-constraints.ts): a table constraint naming the column keeps it from going on SQLite and SQL Server.
  if (column in described) await replaceCheckConstraint(queryInterface, table, column, {});
  await ddlOf(queryInterface.sequelize.getDialect()).columns.dropColumns(queryInterface, table, columns, described);
  observeShadowColumns(
    queryInterface,
    table,
    columns.filter((name) => name === searchColumnOf(column) || name === column),
  );
}

type Columns = Record<string, ModelAttributeColumnOptions>;
type ColumnBuilders = Awaited<ReturnType<typeof fieldColumns>>;

/**
 * Brings back a dropped field's column(s) as declared (a dropped field's down), empty, with the CHECK of
 * their rules: the values went with the drop. A required field without a default on a table that holds rows
 * cannot be NOT NULL then: it comes back nullable, and the start-up comparison names it ("allows null, the field is required") until its rows have values. Its
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
  const { columns: statements } = ddlOf(queryInterface.sequelize.getDialect());
  for (const [name, spec] of Object.entries(built)) {
    if (name in existing) continue; // a retry after a half-applied run
    // A required column with a default is filled with it on every engine; one without cannot be NOT NULL over rows.
    const unfilled = spec.allowNull === false && spec.defaultValue === undefined;
    const [row] = unfilled
      ? await select(queryInterface, `SELECT COUNT(*) AS ${quote('count')} FROM ${quote(table)}`)
      : [];
    const empty = Number(row?.count ?? 0) === 0;
    if (unfilled && empty && statements.addRequiredToEmpty)
      await statements.addRequiredToEmpty(queryInterface, table, name, spec);
    else await queryInterface.addColumn(table, name, unfilled && !empty ? { ...spec, allowNull: true } : spec);
    if (spec.references) await addIndexIfMissing(queryInterface, table, [name], `${table}_${name}`);
  }
  await addColumnChecks(queryInterface, table, built);
}
