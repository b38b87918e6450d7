import type { QueryInterface } from 'sequelize';
import { foldForSearch } from '../../kit/shadows';
import { CLOCK_MARGIN_MS, REPAIR_WINDOW_MS } from '../../search-repair-job';
import { FILL_BATCH, writeComputed, type ColumnFill } from './batched-fill';
import { dataTypesOf, millisecondTimestamp } from './column-types';
import { ddlOf } from './engines/engine-ddl';
import { select } from './select';

// A search shadow added to a table that holds rows stays right while two releases run (a rolling deploy, or a
// rollback of the code alone). The previous release does not know the shadow: a row it inserts has none, and a
// title it changes keeps the old folded text. The migration that adds the shadow opens a repair in the
// `search_repairs` ledger before it fills; every instance of the new release then passes over the table soon
// after it starts, after each migrate() and every REPAIR_INTERVAL_MS while the repair is open
// (stores/search-repair-job.ts): it reads the table by primary key in batches and folds again the rows
// without a shadow or changed since its last pass (by `updated_at`), writing only those whose shadow differs,
// each only while it still holds the value read. The repair closes REPAIR_WINDOW_MS
// after the migration, with a last pass: the previous release is gone long before.

export const SEARCH_REPAIRS_TABLE = 'search_repairs';

export interface SearchRepair {
  table: string;
  source: string;
  target: string;
  /** Rows changed from this moment on are folded again by the next pass. */
  since: Date;
  /** The last pass runs after this moment, then the repair closes. */
  until: Date;
}

const shadowKey = (table: string, target: string) => `${table}.${target}`;

/** The search shadow of `fill`, folded as the store writes it. */
const searchFill = (table: string, source: string, target: string): ColumnFill => ({
  table,
  source,
  target,
  compute: (value) => foldForSearch(String(value)),
});

/**
 * Opens (or reopens) the repair of a search shadow, from a moment before the fill begins: called by the
 * migration that adds it (addSearchColumn), before it fills.
 */
export async function openSearchRepair(
  queryInterface: QueryInterface,
  table: string,
  source: string,
  target: string,
  now = new Date(),
): Promise<void> {
  if (!(await queryInterface.tableExists(SEARCH_REPAIRS_TABLE))) {
    const DataTypes = dataTypesOf(queryInterface);
    await queryInterface.createTable(SEARCH_REPAIRS_TABLE, {
      shadow: { type: DataTypes.STRING(200), primaryKey: true, allowNull: false },
      table_name: { type: DataTypes.STRING(128), allowNull: false },
      source: { type: DataTypes.STRING(128), allowNull: false },
      since: { type: millisecondTimestamp(queryInterface), allowNull: false },
      until: { type: millisecondTimestamp(queryInterface), allowNull: false },
    });
  }
  const shadow = shadowKey(table, target);
  await queryInterface.bulkDelete(SEARCH_REPAIRS_TABLE, { shadow });
  await queryInterface.bulkInsert(SEARCH_REPAIRS_TABLE, [
    {
      shadow,
      table_name: table,
      source,
      since: new Date(now.getTime() - CLOCK_MARGIN_MS),
      until: new Date(now.getTime() + REPAIR_WINDOW_MS),
    },
  ]);
}

/** The open repairs (none where no migration ever opened one). */
export async function openRepairs(queryInterface: QueryInterface): Promise<SearchRepair[]> {
  if (!(await queryInterface.tableExists(SEARCH_REPAIRS_TABLE))) return [];
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const rows = await select(
    queryInterface,
    `SELECT ${['shadow', 'table_name', 'source', 'since', 'until'].map(quote).join(', ')} FROM ${quote(SEARCH_REPAIRS_TABLE)}`,
  );
  return rows.map((row) => ({
    table: String(row.table_name),
    source: String(row.source),
    target: String(row.shadow).slice(String(row.table_name).length + 1),
    since: new Date(row.since as string),
    until: new Date(row.until as string),
  }));
}

/**
 * Folds again the rows of `fill.table` without a shadow or changed since `since`: the table read in id order,
 * FILL_BATCH rows a statement (each bounded by the primary key: no index leads with updated_at, and no
 * statement scans past its batch or locks rows it does not write), the rows picked out here; writes the
 * shadows that differ, and empties the shadow of a row whose value was emptied. Returns the rows written.
 */
async function refold(queryInterface: QueryInterface, fill: ColumnFill, since: Date): Promise<number> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const [table, source, target, id, updated] = [fill.table, fill.source, fill.target, 'id', 'updated_at'].map(quote);
  const { rows: statements } = ddlOf(queryInterface.sequelize.getDialect());
  let after: unknown;
  let written = 0;
  for (;;) {
    const from = `${table}${after === undefined ? '' : ` WHERE ${id} > :after`} ORDER BY ${id}`;
    const columns = `${id} AS id, ${source} AS value, ${target} AS held, ${updated} AS at`;
    const sql = statements.firstRows(columns, from, FILL_BATCH);
    const rows = await select(queryInterface, sql, after === undefined ? {} : { after });
    const looked = rows.filter((row) => row.held === null || new Date(row.at as string) >= since);
    const stale = looked.filter((row) => row.value !== null && row.held !== fill.compute(row.value));
    const emptied = looked.filter((row) => row.value === null && row.held !== null).map((row) => row.id);
    if (stale.length > 0) await writeComputed(queryInterface, fill, stale, false);
    if (emptied.length > 0)
      await queryInterface.sequelize.query(
        `UPDATE ${table} SET ${target} = NULL WHERE ${id} IN (:emptied) AND ${source} IS NULL`,
        { replacements: { emptied } },
      );
    written += stale.length + emptied.length;
    if (rows.length < FILL_BATCH) return written;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * One pass of every open repair: the empty shadows filled, the rows changed since the last pass folded again,
 * the repair moved on to this pass's start (less the clock margin), or closed once its window is over.
 * Safe to run on several instances at once: every write is conditional on the value read.
 */
export async function repairSearchShadows(
  queryInterface: QueryInterface,
  now = new Date(),
): Promise<{ open: number; refolded: number }> {
  const result = { open: 0, refolded: 0 };
  for (const repair of await openRepairs(queryInterface)) {
    const shadow = shadowKey(repair.table, repair.target);
    const columns = (await queryInterface.tableExists(repair.table))
      ? await queryInterface.describeTable(repair.table)
      : {};
    if (!(repair.source in columns) || !(repair.target in columns)) {
      await queryInterface.bulkDelete(SEARCH_REPAIRS_TABLE, { shadow }); // the shadow was taken out again
      continue;
    }
    const fill = searchFill(repair.table, repair.source, repair.target);
    try {
      result.refolded += await refold(queryInterface, fill, repair.since);
    } catch (error) {
      // A repair that keeps failing still ends with its window: the previous release is gone by then.
      if (now >= repair.until) await queryInterface.bulkDelete(SEARCH_REPAIRS_TABLE, { shadow });
      throw error;
    }
    if (now >= repair.until) await queryInterface.bulkDelete(SEARCH_REPAIRS_TABLE, { shadow });
    else {
      result.open += 1;
      const since = new Date(now.getTime() - CLOCK_MARGIN_MS);
      await queryInterface.bulkUpdate(SEARCH_REPAIRS_TABLE, { since }, { shadow });
    }
  }
  return result;
}
