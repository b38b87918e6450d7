import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import { DEFAULT_LIST_SETTINGS, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../stores/kit/pagination';

// The parts of a route contract that every store of owned records shares: the id in the path, the page
// query, and the shapes of a record and of a page. Declared once here, used by generated and hand-written
// modules alike, so every list pages the same way and the document describes them the same way.

/** `/:id`: any string. An id that is not a record id is simply not found (404), like someone else's. */
export const idParams = Type.Object({ id: Type.String({ description: 'The record id (a UUIDv7)' }) });

/**
 * `?limit=&offset=&count=&cursor=`: limit and count coerced, limit's default filled in; out of bounds is a 422
 * on `query.limit` / `query.offset`. `offset` and `cursor` do not mix, and an offset deeper than LIST_MAX_OFFSET
 * is refused (list-window.ts): both need the settings, so they are checked there, not here.
 */
export const pageQuery = Type.Object({
  limit: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Records per page',
  }),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: `Records to skip (default 0), at most LIST_MAX_OFFSET (${DEFAULT_LIST_SETTINGS.maxOffset} unless configured): deeper pages are read with \`cursor\`. Not with \`cursor\`, nor with \`q\` (a search pages with \`cursor\`).`,
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'The `nextCursor` of the previous page (same sort and filters). Not with `offset`.',
    }),
  ),
  count: Type.Optional(
    Type.Boolean({
      description: `true: the page also carries \`total\`, the number of records the list holds, counted up to LIST_COUNT_LIMIT (${DEFAULT_LIST_SETTINGS.countLimit} unless configured; past it \`total\` is the limit and \`totalCapped\` is true). Counting reads every matching record: ask only when it is shown.`,
    }),
  ),
});

/** A Date in the handler, an ISO 8601 string with milliseconds in JSON. */
export const timestamp = Type.Unsafe<Date>({ type: 'string', format: 'date-time' });

/** An owned record as answered: id, owner and timestamps around the module's own fields. */
export function ownedRecordSchema<Fields extends TProperties>(fields: Fields) {
  return Type.Object({
    id: Type.String({ format: 'uuid', description: 'UUIDv7' }),
    ownerId: Type.String({ description: 'The id of the user who created it' }),
    ...fields,
    createdAt: timestamp,
    updatedAt: timestamp,
  });
}

/** One page of a list, the cursor of the next one, and (when asked with `count`) the total. */
export function pageSchema<Item extends TSchema>(item: Item) {
  return Type.Object({
    items: Type.Array(item, { maxItems: MAX_PAGE_SIZE }),
    limit: Type.Integer(),
    offset: Type.Integer(),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description:
        'Pass as `cursor` for the next page; null on the last page. A page may hold fewer than `limit` items, even none, and still have one (`scanCapped`): follow it until null.',
    }),
    total: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'With `count=true`: the records the list holds, at most LIST_COUNT_LIMIT',
      }),
    ),
    totalCapped: Type.Optional(
      Type.Boolean({
        description:
          'With `count=true`: true when the list may hold more than `total` (the count stopped at LIST_COUNT_LIMIT, or, with `q` walked, at LIST_SEARCH_SCAN_LIMIT records examined)',
      }),
    ),
    scanCapped: Type.Optional(
      Type.Boolean({
        description: `With \`q\` where no index serves the term: true when this page stopped after examining LIST_SEARCH_SCAN_LIMIT (${DEFAULT_LIST_SETTINGS.searchScanLimit} unless configured) records; it holds the matches among them, possibly fewer than \`limit\`, and \`nextCursor\` continues after the last one examined`,
      }),
    ),
  });
}
