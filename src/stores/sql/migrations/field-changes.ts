import type { QueryInterface } from 'sequelize';
import { fold, foldedColumnOf } from '../../kit/fields';
import { foldForSearch, searchColumnOf } from '../../kit/shadows';
import { fillInBatches } from './batched-fill';
import { openSearchRepair } from './search-repairs';
import { ddlOf } from './engines/engine-ddl';
import { fieldColumns } from './resource-columns';
import { addColumnIfMissing } from './schema-steps';

// Changes to a field of a table that may hold rows, as `npm run new:field` writes them: a default given or
// taken away, a field made searchable. Each keeps the rest of the table as it is (no table rebuild).

type Default = string | number | boolean | Date | null;

/**
 * Sets (or, with null, drops) the column DEFAULT of a field, and of its shadows (`_folded`, `_search`) with
 * the value folded as the store folds it. PostgreSQL and MySQL/MariaDB `ALTER COLUMN … SET/DROP DEFAULT`
 * (metadata only, no rewrite); SQL Server replaces the column's default constraint `DF_<table>_<column>`.
 * SQLite cannot change a column's default without rebuilding the table: there the column keeps the
 * default it was created with, and the store, which fills every default on create, is what applies it.
 */
export async function setFieldDefault(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  value: Default,
  shadows: { caseInsensitive?: boolean; search?: boolean } = {},
): Promise<void> {
  const shadowValue = (folding: (text: string) => string) => (typeof value === 'string' ? folding(value) : value);
  await setColumnDefault(queryInterface, table, column, value);
  if (shadows.caseInsensitive) await setColumnDefault(queryInterface, table, foldedColumnOf(column), shadowValue(fold));
  if (shadows.search) await setColumnDefault(queryInterface, table, searchColumnOf(column), shadowValue(foldForSearch));
}

async function setColumnDefault(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  value: Default,
): Promise<void> {
  const literal = value === null ? null : queryInterface.sequelize.escape(value as never);
  await ddlOf(queryInterface.sequelize.getDialect()).columns.setDefault(queryInterface, table, column, literal);
}

/**
 * Adds the `<column>_search` shadow that `?q=` matches to a string or text field of a table that may hold
 * rows, and fills it from each row's value as the store would have written it, in batches that commit as
 * they go and resume where they stopped (batched-fill.ts): its migration says `transaction: false`. A row
 * is updated only if it still holds the text that was folded, as on MongoDB (document-migrations.ts).
 */
export async function addSearchColumn(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  field: { kind: 'string' | 'text'; maxLength?: number },
): Promise<void> {
  const c = await fieldColumns(queryInterface);
  const built =
    field.kind === 'string'
      ? c.string(column, { optional: true, search: true, maxLength: field.maxLength })
      : c.text(column, { optional: true, search: true });
  const shadow = searchColumnOf(column);
  await addColumnIfMissing(queryInterface, table, shadow, built[shadow]!);
  // Before the fill: the rows the previous release writes from now on are repaired after it (search-repairs.ts).
  await openSearchRepair(queryInterface, table, column, shadow);
  await fillInBatches(queryInterface, {
    table,
    source: column,
    target: shadow,
    compute: (value) => foldForSearch(String(value)),
  });
}
