/** The largest page a list returns; the query schema refuses a larger `limit` with 422. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
/** The highest LIST_MAX_OFFSET may be set to. */
export const MAX_PAGE_OFFSET = 100_000;

/**
 * What a list costs at most, whatever the table holds (docs/databases.md, "Lists at scale"). An offset
 * page reads and skips `offset` rows, so deep pages are for the cursor; a count reads up to `countLimit`
 * rows, so past that it answers the limit and says so.
 */
export interface ListSettings {
  /** LIST_MAX_OFFSET: the deepest `offset` accepted; deeper is a 422 pointing to `cursor`. */
  maxOffset: number;
  /** LIST_COUNT_LIMIT: `?count=true` counts up to this many rows, then answers this number with `totalCapped`. */
  countLimit: number;
  /**
   * LIST_SEARCH_SCAN_LIMIT: the most records a `?q=` page (or its count) examines where no index serves the
   * term (search-walk.ts); the page then ends there, with a cursor that continues after the last one examined.
   */
  searchScanLimit: number;
}

export const DEFAULT_LIST_SETTINGS: ListSettings = { maxOffset: 1000, countLimit: 10_000, searchScanLimit: 1000 };

/** Which slice of a list to return: offset pagination, newest first. */
export interface PageRequest {
  /** 1..MAX_PAGE_SIZE. */
  limit: number;
  /** Records to skip, ≥ 0. */
  offset: number;
}

/**
 * One slice of a list. The number of records the whole list holds is there only when asked for
 * (`?count=true`): counting reads every matching row, a page reads a page.
 */
export interface Page<T> {
  items: T[];
  limit: number;
  offset: number;
  /** With `count`: how many records the list holds, at most the count limit. */
  total?: number;
  /** With `count`: true when the list may hold more than `total` (the count stopped at its limit, or a search at its scan limit). */
  totalCapped?: boolean;
  /** A search no index serves: true when the page stopped after examining the scan limit (it may hold fewer than `limit` items; `nextCursor` continues). */
  scanCapped?: boolean;
}
