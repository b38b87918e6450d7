import type { QueryInterface } from 'sequelize';
import { indexColumns, listIndexes, listIndexName } from '../../kit/list-indexes';
import type { Resource } from '../../kit/resource';
import { ddlOf } from './engines/engine-ddl';
import { OWNER_CREATED_INDEX } from './record-table';

// The list indexes of a resource's table (src/stores/kit/list-indexes.ts says which), as migrations write
// them: on a new table plainly, on a table that may hold rows without blocking its writes where the engine
// can, and the start-up check that refuses a table lacking one.

type IndexColumns = readonly (readonly string[])[];

interface ShownIndex {
  name: string;
  fields?: { attribute?: string }[];
}

async function existingIndexes(queryInterface: QueryInterface, table: string): Promise<ShownIndex[]> {
  return (await queryInterface.showIndex(table)) as ShownIndex[];
}

const sameColumns = (index: ShownIndex, columns: readonly string[]) =>
  (index.fields ?? []).map((field) => field.attribute).join() === columns.join();

/** Creates these list indexes on a new (empty) table, each unless one of its name exists. */
export async function createListIndexes(
  queryInterface: QueryInterface,
  table: string,
  indexes: IndexColumns,
): Promise<void> {
  const existing = await existingIndexes(queryInterface, table);
  for (const columns of indexes) {
    const name = listIndexName(table, columns);
    if (!existing.some((index) => index.name === name)) await queryInterface.addIndex(table, [...columns], { name });
  }
}

/**
 * Adds list indexes to a table that may hold rows and take writes meanwhile (what `npm run new:indexes`
 * writes; its migration says `transaction: false`): PostgreSQL builds CONCURRENTLY (outside a transaction;
 * an INVALID index a failed build left is dropped first), MySQL/MariaDB with ALGORITHM=INPLACE, LOCK=NONE;
 * SQL Server and SQLite plainly (SQL Server's ONLINE = ON is an Enterprise feature: a short lock elsewhere).
 */
export async function addListIndexes(
  queryInterface: QueryInterface,
  table: string,
  indexes: IndexColumns,
): Promise<void> {
  const { indexes: statements } = ddlOf(queryInterface.sequelize.getDialect());
  // A retry after a half-applied run finds some built already.
  const exists = async (name: string) =>
    (await existingIndexes(queryInterface, table)).some((index) => index.name === name);
  for (const columns of indexes)
    await statements.addOnline(queryInterface, table, listIndexName(table, columns), columns, exists);
}

/** Drops what addListIndexes or createListIndexes added (a migration's down). */
export async function removeListIndexes(
  queryInterface: QueryInterface,
  table: string,
  indexes: IndexColumns,
): Promise<void> {
  const existing = await existingIndexes(queryInterface, table);
  for (const columns of indexes) {
    const name = listIndexName(table, columns);
    if (existing.some((index) => index.name === name)) await queryInterface.removeIndex(table, name);
  }
}

/** The list indexes a resource's declaration needs beyond the record table's own, as column lists (what a migration of its table spells out). */
export function listIndexColumns(resource: Pick<Resource, 'fields' | 'filters' | 'sort'>): string[][] {
  return listIndexes(resource)
    .map(indexColumns)
    .filter((columns) => columns.join() !== OWNER_CREATED_INDEX.join());
}

/** The list indexes the resource's table lacks (matched by columns, whatever their names), with what each serves. */
export async function missingListIndexes(
  queryInterface: QueryInterface,
  resource: Resource,
): Promise<{ columns: string[]; serves: string }[]> {
  const existing = await existingIndexes(queryInterface, resource.table);
  return listIndexes(resource)
    .map((index) => ({ columns: indexColumns(index), serves: index.serves }))
    .filter(({ columns }) => !existing.some((index) => sameColumns(index, columns)));
}
