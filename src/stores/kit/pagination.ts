/** The largest page a list returns; the query schema refuses a larger `limit` with 422. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
/** The largest offset a list accepts: deeper pages are a job for a filter, not for skipping rows. */
export const MAX_PAGE_OFFSET = 1_000_000;

/** Which slice of a list to return: offset pagination, newest first. */
export interface PageRequest {
  /** 1..MAX_PAGE_SIZE. */
  limit: number;
  /** Records to skip, ≥ 0. */
  offset: number;
}

/** One slice of a list and how many records the whole list holds, so a client can page on. */
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
