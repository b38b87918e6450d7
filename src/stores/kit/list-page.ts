import { encodeCursor } from './cursor';
import { pageSegments, readSegments, type Segment } from './keyset';
import { withTiebreak, type ListQuery } from './list-query';
import type { ResourcePage } from './resource-store';
import { searchWalkPage, type SearchScan } from './search-walk';

// A list's page, the same on every engine family: the order with its tiebreak, the segments a cursor or
// first page is read in (keyset.ts), the offset page, the asked-for count and the next cursor. Each store
// family only says how to read one segment and how to count (its translation of the conditions).

export interface ListReader<Row> {
  /** The rows of the list (scope and conditions) that also meet the segment's, in its order: at most `limit`, after `offset`. */
  read(segment: Segment, limit: number, offset: number): Promise<Row[]>;
  /** How many rows the list matches, reading at most `upTo` of them. */
  count(upTo: number): Promise<number>;
  /** Given when the list searches with a term no index of the engine serves: the page is a bounded walk (search-walk.ts). */
  searchScan?: SearchScan<Row>;
  /**
   * Given when an index serves the term: the page is first looked for in a short walk of the list's order (a
   * term most records hold fills it there, where the index would hand over every match to be sorted), and
   * read through the index only when that walk falls short.
   */
  searchProbe?: SearchScan<Row>;
  /**
   * Given with `searchProbe`: the rows `read` would answer, taken from the term's matches first, or undefined when
   * they are too many to sort. Asked when the probe met no match, so the planner cannot walk the whole order
   * expecting one soon (PostgreSQL: page-from-matches.ts).
   */
  readMatches?(segment: Segment, limit: number, offset: number): Promise<Row[] | undefined>;
}

/** The rows a probe examines: twice the page, one read (a term in half the records fills it). */
const probeRows = (limit: number) => 2 * (limit + 1);

export async function listPage<R extends object>(
  query: ListQuery,
  nullable: (field: string) => boolean,
  reader: ListReader<R>,
): Promise<ResourcePage<R>> {
  const order = withTiebreak(query.sort);
  if (reader.searchScan && query.search !== undefined) return searchWalkPage(query, order, nullable, reader.searchScan);
  let sparse = false; // the probe examined rows and met no match
  if (
    reader.searchProbe &&
    query.search !== undefined &&
    query.countUpTo === undefined &&
    (query.after || query.offset === 0)
  ) {
    const probed = await searchWalkPage(
      { ...query, scanLimit: probeRows(query.limit) },
      order,
      nullable,
      reader.searchProbe,
    );
    if (probed.scanCapped !== true) return probed; // the page, whole: its matches found, or the list ended
    sparse = probed.items.length === 0;
  }
  let readMatches = sparse ? reader.readMatches?.bind(reader) : undefined;
  const readSegment = async (segment: Segment, limit: number) => {
    const rows = await readMatches?.(segment, limit, 0);
    if (rows) return rows;
    readMatches = undefined; // too many matches for one segment: the next ones are read in the order at once
    return reader.read(segment, limit, 0);
  };
  const wanted = query.limit + 1; // one more tells whether a next page exists
  const page =
    query.after || query.offset === 0
      ? readSegments(pageSegments(order, query.after, nullable), wanted, readSegment)
      : // An offset page (bounded by LIST_MAX_OFFSET): one read in the whole order, skipping the rows before.
        reader.read({ where: [], order, nonNull: [] }, wanted, query.offset);
  const counted = query.countUpTo === undefined ? undefined : reader.count(query.countUpTo + 1);
  const [rows, count] = await Promise.all([page, counted]);
  const items = rows.slice(0, query.limit);
  const nextCursor = rows.length > query.limit ? encodeCursor(order, items.at(-1)! as Record<string, unknown>) : null;
  const offset = query.after ? 0 : query.offset;
  if (count === undefined) return { items, limit: query.limit, offset, nextCursor };
  return {
    items,
    total: Math.min(count, query.countUpTo!),
    totalCapped: count > query.countUpTo!,
    limit: query.limit,
    offset,
    nextCursor,
  };
}
