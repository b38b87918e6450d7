import type { QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';
import type { BatchTarget, ComputedRow } from './engines/row-ddl';
import { select } from './select';

// Filling a column of a table that holds rows (a new search shadow from each row's value): read in batches
// in id order, each batch written back with ONE statement that commits by itself, so a table of 10^6 rows
// costs 2 × 10^3 round trips, holds its row locks one batch at a time, and a fill cut short (a deploy
// killed, a timeout) resumes where it stopped: the rows filled are skipped (`target IS NULL`). The
// migration that fills says `transaction: false`: inside a migration's transaction the batches would only
// commit at its end. Each row is written only while it still holds the value that was read, so a value
// changed meanwhile is not overwritten with a fold of the old one; a statement also carries at most
// FILL_BATCH_BYTES of values (long texts: several statements a batch). What the previous release writes while
// and after this runs is put right by the repair the migration opens (search-repairs.ts).

/** Rows read and written per statement. */
export const FILL_BATCH = 1000;

export interface ColumnFill {
  table: string;
  /** The column read. */
  source: string;
  /** The column filled, where it is null and the source is not. */
  target: string;
  /** The target's value from the source's. */
  compute(value: unknown): unknown;
}

/** The most bytes of values one statement carries (a row larger than it goes alone): far below MySQL's max_allowed_packet. */
export const FILL_BATCH_BYTES = 1 << 20;

/** Rows in runs whose values (read and computed) stay within FILL_BATCH_BYTES. */
function* withinBytes(rows: readonly ComputedRow[]): Generator<ComputedRow[]> {
  const size = (value: unknown) => (value == null ? 0 : Buffer.byteLength(String(value)));
  let run: ComputedRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const rowBytes = size(row.value) + size(row.computed) + 64;
    if (run.length > 0 && bytes + rowBytes > FILL_BATCH_BYTES) {
      yield run;
      [run, bytes] = [[], 0];
    }
    run.push(row);
    bytes += rowBytes;
  }
  if (run.length > 0) yield run;
}

/**
 * Writes `target` computed from the `source` each row was read with, in statements bounded by rows and bytes,
 * each committing by itself; a row whose source changed since it was read is left alone. `emptyOnly`: only
 * where the target is still null.
 */
export async function writeComputed(
  queryInterface: QueryInterface,
  fill: ColumnFill,
  read: readonly Record<string, unknown>[],
  emptyOnly: boolean,
  collations?: Map<string, string>,
): Promise<void> {
  const { rows: statements } = ddlOf(queryInterface.sequelize.getDialect());
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const into: BatchTarget = {
    table: quote(fill.table),
    id: quote('id'),
    source: quote(fill.source),
    target: quote(fill.target),
    sourceName: fill.source,
    collations: collations ?? (await statements.prepareBatches?.(queryInterface, fill.table, ['id', fill.source])),
  };
  const rows = read.map((row) => ({ id: row.id, value: row.value, computed: fill.compute(row.value) }));
  for (const run of withinBytes(rows))
    await queryInterface.sequelize.query(statements.batchUpdate(queryInterface, into, run, emptyOnly));
}

/**
 * Fills `target` from `source` in every row where it is null, FILL_BATCH rows a read (and at most
 * FILL_BATCH_BYTES a statement), each batch committed as it is written (outside a transaction); returns the
 * rows read. Run again after an interruption, it goes on with the rows left.
 */
export async function fillInBatches(
  queryInterface: QueryInterface,
  fill: ColumnFill,
  batch = FILL_BATCH,
): Promise<number> {
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const { rows: statements } = ddlOf(queryInterface.sequelize.getDialect());
  const collations = await statements.prepareBatches?.(queryInterface, fill.table, ['id', fill.source]);
  let after: unknown;
  let read = 0;
  for (;;) {
    const from = `${quote(fill.table)} WHERE ${quote(fill.target)} IS NULL AND ${quote(fill.source)} IS NOT NULL${after === undefined ? '' : ` AND ${quote('id')} > :after`} ORDER BY ${quote('id')}`;
    const sql = statements.firstRows(`${quote('id')} AS id, ${quote(fill.source)} AS value`, from, batch);
    const rows = await select(queryInterface, sql, after === undefined ? {} : { after });
    if (rows.length === 0) return read;
    await writeComputed(queryInterface, fill, rows, true, collations);
    read += rows.length;
    if (rows.length < batch) return read;
    after = rows[rows.length - 1]!.id;
  }
}
