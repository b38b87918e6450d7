import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_OFFSET, MAX_PAGE_SIZE } from '../../stores/kit/pagination';

// The parts of a route contract that every store of owned records shares: the id in the path, the page
// query, and the shapes of a record and of a page. Declared once here, used by generated and hand-written
// modules alike, so every list pages the same way and the document describes them the same way.

/** `/:id`: any string. An id that is not a record id is simply not found (404), like someone else's. */
export const idParams = Type.Object({ id: Type.String({ description: 'The record id (a UUIDv7)' }) });

/** `?limit=&offset=`: coerced to integers, defaults filled in; out of bounds is a 422 on `query.limit` / `query.offset`. */
export const pageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Records per page' }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_PAGE_OFFSET, default: 0, description: 'Records to skip (newest first)' }),
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

/** One page of a list, and the total to page through. */
export function pageSchema<Item extends TSchema>(item: Item) {
  return Type.Object({ items: Type.Array(item, { maxItems: MAX_PAGE_SIZE }), total: Type.Integer({ minimum: 0 }), limit: Type.Integer(), offset: Type.Integer() });
}
