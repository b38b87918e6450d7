import type { QueryInterface } from 'sequelize';

// How each engine reads a bounded batch of rows and writes a batch of computed values back in one statement
// (the fills and repairs of batched-fill.ts and search-repairs.ts, the probes of destructive.ts): one object
// per engine (<engine>-rows.ts) behind this interface.

/** A row as read (id, the source's value) with the value computed from it. */
export interface ComputedRow {
  id: unknown;
  value: unknown;
  computed: unknown;
}

/** The quoted names a batch's UPDATE joins on. */
export interface BatchTarget {
  /** The table, its id, source and target columns, quoted. */
  table: string;
  id: string;
  source: string;
  target: string;
  /** MySQL/MariaDB: the columns' collations, named in the join (set by prepareBatches). */
  collations?: ReadonlyMap<string, string>;
  /** The unquoted names of id and source, for the collations. */
  sourceName: string;
}

export interface RowDdl {
  /** `SELECT <columns> FROM <from…>` limited to the first `limit` rows (`from` holds WHERE and ORDER BY). */
  firstRows(columns: string, from: string, limit: number): string;
  /** What a batch's UPDATE needs to know of the table once, before the batches (MySQL/MariaDB: collations). */
  prepareBatches?(queryInterface: QueryInterface, table: string, columns: string[]): Promise<Map<string, string>>;
  /** ONE statement setting the target of each row still holding the value read (`emptyOnly`: where still null). */
  batchUpdate(
    queryInterface: QueryInterface,
    into: BatchTarget,
    rows: readonly ComputedRow[],
    emptyOnly: boolean,
  ): string;
}

/** `(id, value, computed), …` as literals, for the engines that take a VALUES list. */
export function valuesList(queryInterface: QueryInterface, rows: readonly ComputedRow[]): string {
  return rows
    .map(
      (row) =>
        `(${[row.id, row.value, row.computed].map((value) => queryInterface.sequelize.escape(value as never)).join(', ')})`,
    )
    .join(', ');
}

/** `SELECT … LIMIT n`: every engine but SQL Server. */
export const limitRows = (columns: string, from: string, limit: number) =>
  `SELECT ${columns} FROM ${from} LIMIT ${limit}`;
