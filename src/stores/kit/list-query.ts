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
  /** The sort values (id last) of the record a cursor page starts after; `offset` is then not used. */
  after?: readonly unknown[];
  /** `?q=`: records where a searched field (resource.search) holds this text, as foldForSearch reads both (shadows.ts). */
  search?: string;
  /**
   * With `search`: the most rows a page (and its count) examines where no index serves the term
   * (LIST_SEARCH_SCAN_LIMIT; search-walk.ts). The store decides whether its engine's index serves it.
   */
  scanLimit?: number;
  /** Count the matching records too, reading at most this many (the page's `total`, `totalCapped`). */
  countUpTo?: number;
}

/** Newest first: the order of a list that asks for none. */
export const DEFAULT_SORT: readonly SortKey[] = [{ field: 'createdAt', descending: true }];

/** The full order of a list: its keys, then id in the direction of the last one. */
export function withTiebreak(sort: readonly SortKey[]): SortKey[] {
  const keys = sort.length > 0 ? sort : DEFAULT_SORT;
  return [...keys, { field: 'id', descending: keys.at(-1)!.descending }];
}

/** The kind of a record field, for the ones every record has. */
export function builtInKind(field: string): FieldKind | undefined {
  if (field === 'createdAt' || field === 'updatedAt') return 'datetime';
  if (field === 'id') return 'string';
  return undefined;
}
