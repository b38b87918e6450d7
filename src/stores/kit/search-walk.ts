import { encodeCursor } from './cursor';
import { pageSegments, readSegments, type Segment } from './keyset';
import type { ListQuery, SortKey } from './list-query';
import { DEFAULT_LIST_SETTINGS } from './pagination';
import type { ResourcePage } from './resource-store';

// A search no index serves (MySQL/MariaDB, SQL Server, MongoDB; a term shorter than an index's trigrams
// anywhere), bounded: a page examines at most LIST_SEARCH_SCAN_LIMIT records of the list, in its order, and
// answers the ones that match with a cursor after the last one examined, so a rare term costs a bounded walk
// per page instead of the owner's whole table (docs/databases.md, "Lists at scale"). A page may then hold fewer
// than `limit` items, even none, and still have a next one (`scanCapped`). Following the cursors gives the
// same records in the same order as an engine whose index serves the term. The count is bounded alike.

/** One examined row: its id, its values of the page's order, and whether it matches the search. */
export interface ScannedRow {
  id: string;
  keys: Record<string, unknown>;
  hit: boolean;
}

/** What a store family does for the walk: examine rows (without reading them whole), then read the matches. */
export interface SearchScan<Row> {
  /** At most `limit` rows of the list (scope and filters, not the search) that also meet the segment's conditions, in its order. */
  scan(segment: Segment, limit: number): Promise<ScannedRow[]>;
  /** The records with these ids, in any order. */
  byIds(ids: readonly string[]): Promise<Row[]>;
}

interface Walked {
  hits: ScannedRow[];
  /** The last row examined: the next page starts after it. */
  last?: ScannedRow;
  /** The walk stopped at its bound with rows possibly left. */
  capped: boolean;
}

/** The first read examines twice the page; each next one four times more, up to what the bound leaves. */
const FIRST_READ_FACTOR = 2;
const GROWTH = 4;

/**
 * Examines the list in `order` from after `start` (the start when undefined), at most `budget` rows, until
 * `wanted` of them match. Reads grow (a common term is found in the first one; a rare one costs a few
 * reads of the bound), each a page of the order's index ranges (keyset.ts) after the last row examined.
 */
async function walk<Row>(
  order: readonly SortKey[],
  start: readonly unknown[] | undefined,
  nullable: (field: string) => boolean,
  wanted: number,
  budget: number,
  scanner: SearchScan<Row>,
): Promise<Walked> {
  const hits: ScannedRow[] = [];
  let after = start;
  let last: ScannedRow | undefined;
  let left = budget;
  let chunk = Math.min(budget, wanted * FIRST_READ_FACTOR);
  while (left > 0) {
    const size = Math.min(chunk, left);
    const rows = await readSegments(pageSegments(order, after, nullable), size, (segment, limit) =>
      scanner.scan(segment, limit),
    );
    for (const row of rows) {
      last = row;
      left -= 1;
      if (row.hit) hits.push(row);
      if (hits.length >= wanted) return { hits, last, capped: false };
    }
    if (rows.length < size) return { hits, last, capped: false }; // the list ends here
    after = order.map((key) => last!.keys[key.field] ?? null);
    chunk *= GROWTH;
  }
  return { hits, last, capped: true };
}

/** Reads the matching records of `hits`, in their order. */
async function recordsOf<Row extends object>(hits: readonly ScannedRow[], scanner: SearchScan<Row>): Promise<Row[]> {
  if (hits.length === 0) return [];
  const byId = new Map(
    (await scanner.byIds(hits.map((hit) => hit.id))).map((row) => [String((row as { id?: unknown }).id), row]),
  );
  return hits.map((hit) => byId.get(hit.id)).filter((row): row is Row => row !== undefined); // one deleted meanwhile is left out
}

/** A bounded search page (and count, when asked), in `order` (tiebreak included). */
export async function searchWalkPage<Row extends object>(
  query: ListQuery,
  order: readonly SortKey[],
  nullable: (field: string) => boolean,
  scanner: SearchScan<Row>,
): Promise<ResourcePage<Row>> {
  const budget = query.scanLimit ?? DEFAULT_LIST_SETTINGS.searchScanLimit;
  const offset = query.after ? 0 : query.offset;
  const page = walk(order, query.after, nullable, offset + query.limit + 1, budget, scanner);
  const counted =
    query.countUpTo === undefined ? undefined : walk(order, undefined, nullable, query.countUpTo + 1, budget, scanner);
  const [walked, count] = await Promise.all([page, counted]);
  const shown = walked.hits.slice(offset, offset + query.limit);
  const items = await recordsOf(shown, scanner);
  const more = walked.hits.length > offset + query.limit;
  const nextCursor = more
    ? encodeCursor(order, shown.at(-1)!.keys)
    : walked.capped && walked.last
      ? encodeCursor(order, walked.last.keys)
      : null;
  const result: ResourcePage<Row> = {
    items,
    limit: query.limit,
    offset,
    nextCursor,
    ...(!more && walked.capped ? { scanCapped: true } : {}),
  };
  if (!count) return result;
  return {
    ...result,
    total: Math.min(count.hits.length, query.countUpTo!),
    totalCapped: count.capped || count.hits.length > query.countUpTo!,
  };
}
