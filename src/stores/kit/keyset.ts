import type { SortKey } from './list-query';

// How a page is read so that it costs a page on every engine (docs/databases.md, "Lists at scale"). A
// list is ordered by its keys, then id; each declared order has an index in that order (list-indexes.ts).
// "The rows after the cursor" is an OR over the keys (equal on the keys before, after on this one), and an
// OR is something no engine seeks an index with alike: PostgreSQL filters it while walking from the start
// of the owner's rows, MySQL builds ranges, SQL Server scans. So the page is read instead as a few
// segments in order, each one a plain range of the index (equalities on a prefix of the keys, one bound
// on the next, ordered by the rest) that every engine seeks, stopping as soon as the page is full:
//
//   after (title 'b', id 7), by title:  [title = 'b' AND id > 7, by id]  then  [title > 'b', by title, id]
//
// Nulls order before every value on every engine (ascending; after them descending). A nullable key is
// split the same way, so no segment asks an engine for NULLS FIRST/LAST on a key it bounds: the null
// rows are a segment of their own (`key IS NULL`, by the keys after it).

/** One condition of a segment, on a sort key or id: the stored value as it is (no case folding). */
export interface KeyCondition {
  field: string;
  /** same: equals the value (null: is null); notNull: has a value; greater/less: strictly, by the engine's order. */
  is: 'same' | 'greater' | 'less' | 'notNull';
  value?: unknown;
}

/**
 * One range of the order's index: its conditions, and the order its rows are read in. The order is always
 * the page's whole order: keys a segment holds equal are constant in it, and naming them keeps the ORDER BY
 * the index's own, so no engine reads the range another way (MariaDB, ordered by the later keys alone, seeks
 * the owner and filters the bound while it walks: a cursor page would cost its depth).
 */
export interface Segment {
  where: KeyCondition[];
  order: SortKey[];
  /** Keys this segment bounds or holds equal: an engine orders them without NULLS FIRST/LAST. */
  nonNull: string[];
}

/** The conditions of the rows with these leading keys equal, then the rest of the order, split at a nullable next key. */
function from(
  order: readonly SortKey[],
  equal: KeyCondition[],
  nullable: (field: string) => boolean,
): KeyCondition[][] {
  const [key, ...rest] = order;
  if (!key || !nullable(key.field)) return [equal];
  const nulls = from(rest, [...equal, { field: key.field, is: 'same', value: null }], nullable);
  const values = [...equal, { field: key.field, is: 'notNull' as const }];
  return key.descending ? [values, ...nulls] : [...nulls, values];
}

/** The conditions of each segment after the record whose sort values are `after`, in the order their rows come. */
function after(
  order: readonly SortKey[],
  values: readonly unknown[],
  nullable: (field: string) => boolean,
): KeyCondition[][] {
  const segments: KeyCondition[][] = [];
  // Deepest first: rows equal on every key before the last one come right after the cursor.
  for (let index = order.length - 1; index >= 0; index -= 1) {
    const key = order[index]!;
    const value = values[index];
    const equal = order
      .slice(0, index)
      .map((previous, i): KeyCondition => ({ field: previous.field, is: 'same', value: values[i] }));
    if (!key.descending) {
      // Ascending: nulls first, so after a null come the values; after a value, the greater ones.
      segments.push([
        ...equal,
        value === null ? { field: key.field, is: 'notNull' } : { field: key.field, is: 'greater', value },
      ]);
    } else if (value !== null) {
      // Descending: the smaller values, then (nullable keys) the nulls, which come last.
      segments.push([...equal, { field: key.field, is: 'less', value }]);
      if (nullable(key.field))
        segments.push(
          ...from(order.slice(index + 1), [...equal, { field: key.field, is: 'same', value: null }], nullable),
        );
    } // descending after a null: nothing comes after it on this key
  }
  return segments;
}

/**
 * The segments of a page in `order` (id last), from its start or after the record whose sort values are
 * `values`, in the order their rows come. `nullable` says which keys may be null.
 */
export function pageSegments(
  order: readonly SortKey[],
  values: readonly unknown[] | undefined,
  nullable: (field: string) => boolean,
): Segment[] {
  const conditions = values ? after(order, values, nullable) : from(order, [], nullable);
  return conditions.map((where) => ({ where, order: [...order], nonNull: where.map((condition) => condition.field) }));
}

/**
 * A segment's order as its index holds it: led by the owner when the list is one owner's, the index being
 * (owner, keys, id). Ordering by the index's own columns, constant ones included, lets every engine read the
 * segment as a range of it (MariaDB, ordered by the later keys alone, seeked the owner and filtered the rest).
 */
export function indexOrder(segment: Segment, ownerScoped: boolean): SortKey[] {
  return ownerScoped
    ? [{ field: 'ownerId', descending: segment.order[0]?.descending ?? false }, ...segment.order]
    : [...segment.order];
}

/** Reads the segments in turn until `wanted` rows are there (the page, plus one to tell a next page exists). */
export async function readSegments<Row>(
  segments: readonly Segment[],
  wanted: number,
  read: (segment: Segment, limit: number) => Promise<Row[]>,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const segment of segments) {
    if (rows.length >= wanted) break;
    rows.push(...(await read(segment, wanted - rows.length)));
  }
  return rows;
}
