// A short page is not the last one (decision 023, issue 39): a `?q=` that no index serves examines at most
// LIST_SEARCH_SCAN_LIMIT records a page and answers the matches among them, possibly fewer than `limit`, even
// none, with `scanCapped: true` and a `nextCursor`. Each generated client's flow proves it can follow such
// pages: it gives this file two calls made with its own typed client (create a note, read a page of a
// search) and the part here, shared so the three clients are held to one standard, seeds one owner's notes
// and follows the cursors. The flows' service runs with a low LIST_SEARCH_SCAN_LIMIT
// (scripts/ci/api-document.sh), and on SQLite every term is walked, so the pages stop early.

/** A page as the flow read it through its client: the fields a loop following the cursors relies on. */
export interface SearchPage {
  titles: string[];
  nextCursor: string | null;
  scanCapped: boolean | undefined;
}

/** What a flow lends this walk: its typed client's calls, and a name for the messages. */
export interface SearchClient {
  name: string;
  create(title: string): Promise<void>;
  page(query: { q: string; limit: number; sort: 'title'; cursor?: string }): Promise<SearchPage>;
}

// The service's scan limit as the script starts it (the lowest it allows is 10); the flows read the same
// variable so that the seed always spans several walks.
const scanLimit = Number(process.env.LIST_SEARCH_SCAN_LIMIT ?? 20);
const LIMIT = 5;
const TERM = 'zephyr';

/**
 * Titles sorted as created (zero-padded), two scan windows and a bit: matches at 2 and 3 (the first window),
 * none in the second, one in the last. Fewer matches than `limit`, so every page that has a next one is short,
 * and the middle page is empty: the two cases a client that stops at a short page gets wrong.
 */
function seed(tag: string): { titles: string[]; matching: string[] } {
  const count = scanLimit * 2 + 5;
  const hits = new Set([2, 3, count - 1]);
  const titles = Array.from({ length: count }, (_, index) => `${tag} ${String(index).padStart(3, '0')} ${hits.has(index) ? TERM : 'plain'}`);
  return { titles, matching: titles.filter((title) => title.endsWith(TERM)) };
}

/**
 * Creates the notes, then follows `nextCursor` until it is null, and checks that the pages together hold
 * exactly the matching notes in title order, that some page was short yet not the last, and that each such
 * page said `scanCapped`. Answers a line for the flow's summary.
 */
export async function followShortPages(client: SearchClient): Promise<string> {
  const { titles, matching } = seed(`${client.name}-${Date.now()}`);
  for (const title of titles) await client.create(title);
  const found: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  const most = Math.ceil(titles.length / scanLimit) + 2; // a cursor that never ends fails rather than loops
  do {
    if (sizes.length === most) throw new Error(`${client.name} search: still a next page after ${most} pages`);
    const page = await client.page({ q: TERM, limit: LIMIT, sort: 'title', ...(cursor ? { cursor } : {}) });
    const short = page.titles.length < LIMIT && page.nextCursor !== null;
    if (short && page.scanCapped !== true) throw new Error(`${client.name} search: a short page with a next one did not say scanCapped`);
    found.push(...page.titles);
    sizes.push(page.titles.length);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  if (found.join('\n') !== matching.join('\n')) throw new Error(`${client.name} search: found [${found.join(', ')}], not [${matching.join(', ')}]`);
  if (!sizes.slice(0, -1).some((size) => size < LIMIT)) throw new Error(`${client.name} search: no short page before the last (LIST_SEARCH_SCAN_LIMIT=${scanLimit}?)`);
  return `q=${TERM} over ${titles.length} notes: pages of ${sizes.join(', ')} (limit ${LIMIT}), ${found.length} found`;
}
