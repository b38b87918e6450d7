import type { QueryInterface } from 'sequelize';
import { select } from './table-schema';

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

interface Row {
  id: unknown;
  value: unknown;
  computed: unknown;
}

/** MySQL/MariaDB compare a derived table's text in the connection's collation: the columns' own are named in the join, so the primary key serves it. */
async function collationsOf(
  queryInterface: QueryInterface,
  table: string,
  columns: string[],
): Promise<Map<string, string>> {
  const rows = await select(
    queryInterface,
    'SELECT COLUMN_NAME AS `name`, COLLATION_NAME AS `collation` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME IN (:columns)',
    { table, columns },
  );
  return new Map(rows.filter((row) => row.collation != null).map((row) => [String(row.name), String(row.collation)]));
}

/**
 * The one statement that writes a batch: the rows joined to their values by id and the value read. `emptyOnly`:
 * only where the target is still null (a fill); otherwise over whatever it holds (a repair).
 */
function updateStatement(
  queryInterface: QueryInterface,
  fill: ColumnFill,
  rows: Row[],
  collations: Map<string, string>,
  emptyOnly: boolean,
): string {
  const { sequelize } = queryInterface;
  const quote = (name: string) => queryInterface.quoteIdentifier(name);
  const [table, id, source, target] = [quote(fill.table), quote('id'), quote(fill.source), quote(fill.target)];
  const tuples = rows
    .map((row) => `(${[row.id, row.value, row.computed].map((value) => sequelize.escape(value as never)).join(', ')})`)
    .join(', ');
  switch (sequelize.getDialect()) {
    case 'postgres':
      return `UPDATE ${table} SET ${target} = v.computed FROM (VALUES ${tuples}) AS v(id, value, computed) WHERE ${table}.${id} = v.id AND ${table}.${source} = v.value${emptyOnly ? ` AND ${table}.${target} IS NULL` : ''}`;
    case 'mssql':
      return `UPDATE r SET r.${target} = v.computed FROM ${table} AS r JOIN (VALUES ${tuples}) AS v(id, value, computed) ON r.${id} = v.id AND r.${source} = v.value${emptyOnly ? ` WHERE r.${target} IS NULL` : ''}`;
    case 'mysql':
    case 'mariadb': {
      const collate = (column: string) => (collations.has(column) ? ` COLLATE ${collations.get(column)!}` : '');
      const derived = rows
        .map(
          (row, index) =>
            `SELECT ${[row.id, row.value, row.computed].map((value, at) => `${sequelize.escape(value as never)}${index === 0 ? ` AS ${['id', 'value', 'computed'][at]}` : ''}`).join(', ')}`,
        )
        .join(' UNION ALL ');
      return `UPDATE ${table} AS r JOIN (${derived}) AS v ON r.${id} = v.id${collate('id')} AND r.${source} = v.value${collate(fill.source)} SET r.${target} = v.computed${emptyOnly ? ` WHERE r.${target} IS NULL` : ''}`;
    }
    default:
      return `UPDATE ${table} SET ${target} = v.column3 FROM (VALUES ${tuples}) AS v WHERE ${table}.${id} = v.column1 AND ${table}.${source} = v.column2${emptyOnly ? ` AND ${table}.${target} IS NULL` : ''}`;
  }
}

/** The most bytes of values one statement carries (a row larger than it goes alone): far below MySQL's max_allowed_packet. */
export const FILL_BATCH_BYTES = 1 << 20;

/** Rows in runs whose values (read and computed) stay within FILL_BATCH_BYTES. */
function* withinBytes(rows: readonly Row[]): Generator<Row[]> {
  const size = (value: unknown) => (value == null ? 0 : Buffer.byteLength(String(value)));
  let run: Row[] = [];
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

/** The column collations a batch's join names (MySQL/MariaDB only). */
async function joinCollations(queryInterface: QueryInterface, fill: ColumnFill): Promise<Map<string, string>> {
  const dialect = queryInterface.sequelize.getDialect();
  return dialect === 'mysql' || dialect === 'mariadb'
    ? collationsOf(queryInterface, fill.table, ['id', fill.source])
    : new Map<string, string>();
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
  const joined = collations ?? (await joinCollations(queryInterface, fill));
  const rows = read.map((row) => ({ id: row.id, value: row.value, computed: fill.compute(row.value) }));
  for (const run of withinBytes(rows))
    await queryInterface.sequelize.query(updateStatement(queryInterface, fill, run, joined, emptyOnly));
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
  const mssql = queryInterface.sequelize.getDialect() === 'mssql';
  const collations = await joinCollations(queryInterface, fill);
  let after: unknown;
  let read = 0;
  for (;;) {
    const from = `${quote(fill.table)} WHERE ${quote(fill.target)} IS NULL AND ${quote(fill.source)} IS NOT NULL${after === undefined ? '' : ` AND ${quote('id')} > :after`} ORDER BY ${quote('id')}`;
    const sql = mssql
      ? `SELECT TOP ${batch} ${quote('id')} AS id, ${quote(fill.source)} AS value FROM ${from}`
      : `SELECT ${quote('id')} AS id, ${quote(fill.source)} AS value FROM ${from} LIMIT ${batch}`;
    const rows = await select(queryInterface, sql, after === undefined ? {} : { after });
    if (rows.length === 0) return read;
    await writeComputed(queryInterface, fill, rows, true, collations);
    read += rows.length;
    if (rows.length < batch) return read;
    after = rows[rows.length - 1]!.id;
  }
}
