import type { ParsedUrlQuery } from 'node:querystring';
import { MAX_PAGE_SIZE, pageRequest, type PageRequest } from '../../stores/kit/pagination';
import type { FieldError } from '../envelope';
import { unprocessable } from '../errors';

/** The largest offset a list accepts: deeper pages are a job for a filter, not for skipping rows. */
export const MAX_PAGE_OFFSET = 1_000_000;

const DIGITS = /^\d{1,7}$/;

function readInteger(query: ParsedUrlQuery, name: string, min: number, max: number, errors: FieldError[]): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && DIGITS.test(raw) ? Number(raw) : NaN;
  if (Number.isInteger(value) && value >= min && value <= max) return value;
  errors.push({ field: `query.${name}`, message: `must be an integer from ${min} to ${max}` });
  return undefined;
}

/**
 * `?limit=&offset=` of a list route, checked: `limit` 1..MAX_PAGE_SIZE (default 20), `offset`
 * 0..MAX_PAGE_OFFSET (default 0); anything else, or a parameter given twice, is a 422 naming
 * `query.limit` / `query.offset`.
 */
export function readPage(query: ParsedUrlQuery): PageRequest {
  const errors: FieldError[] = [];
  const limit = readInteger(query, 'limit', 1, MAX_PAGE_SIZE, errors);
  const offset = readInteger(query, 'offset', 0, MAX_PAGE_OFFSET, errors);
  if (errors.length) throw unprocessable(errors);
  return pageRequest({ limit, offset });
}
