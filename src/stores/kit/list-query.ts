import type { FieldKind } from './fields';

// A list request in the store's terms, the same for every engine family: conditions on fields, an order
// (id always last, as the tiebreak), and a window (offset, or a cursor after a given record). The HTTP
// layer builds it from the query string; each store family turns it into its own query.

export type Comparison = 'eq' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'null';

export interface Condition {
  field: string;
  comparison: Comparison;
  /** eq/ranges: one value; in: several; null: true (is null) or false (is not null). Typed as the field is. */
  value: unknown;
}

export interface SortKey {
  field: string;
  descending: boolean;
}

export interface ListQuery {
  where: readonly Condition[];
  /** Without id: the store appends it, in the direction of the last key. */
  sort: readonly SortKey[];
  limit: number;
  offset: number;
  /** The sort values (id last) of the record a cursor page starts after. */
  after?: readonly unknown[];
}

/** Newest first: the order of a list that asks for none. */
export const DEFAULT_SORT: readonly SortKey[] = [{ field: 'createdAt', descending: true }];

/** The full order of a list: its keys, then id in the direction of the last one. */
export function withTiebreak(sort: readonly SortKey[]): SortKey[] {
  const keys = sort.length > 0 ? sort : DEFAULT_SORT;
  return [...keys, { field: 'id', descending: keys.at(-1)!.descending }];
}

/**
 * Nulls order before every value, on every engine (SQLite, MySQL, SQL Server and MongoDB do so already;
 * PostgreSQL is told NULLS FIRST/LAST). With that, "after the cursor" for one key reads:
 *   ascending:  value > c, or (c is null and value is not null)
 *   descending: value < c, or (c is not null and value is null)
 * and the whole predicate is the usual keyset OR over the keys (equal on the ones before, after on this).
 */
export type AfterStep = { field: string; kind: 'greater' | 'less' | 'notNull' | 'lessOrNull' | 'none'; value: unknown };

/** One step per key: what "after the cursor's value" means for it (see above); `nullable` says which keys may be null. */
export function afterSteps(
  order: readonly SortKey[],
  after: readonly unknown[],
  nullable: (field: string) => boolean,
): { equal: { field: string; value: unknown }[]; step: AfterStep }[] {
  return order.map((key, index) => {
    const value = after[index];
    const equal = order.slice(0, index).map((previous, i) => ({ field: previous.field, value: after[i] }));
    let kind: AfterStep['kind'];
    if (!key.descending) kind = value === null ? 'notNull' : 'greater';
    else kind = value === null ? 'none' : nullable(key.field) ? 'lessOrNull' : 'less';
    return { equal, step: { field: key.field, kind, value } };
  });
}

/** The kind of a record field, for the ones every record has. */
export function builtInKind(field: string): FieldKind | undefined {
  if (field === 'createdAt' || field === 'updatedAt') return 'datetime';
  if (field === 'id') return 'string';
  return undefined;
}
