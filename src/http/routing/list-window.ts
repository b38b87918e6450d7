import { decodeCursor } from '../../stores/kit/cursor';
import type { FieldKind } from '../../stores/kit/fields';
import type { SortKey } from '../../stores/kit/list-query';
import type { ListSettings } from '../../stores/kit/pagination';
import type { FieldError } from '../envelope';
import { nulCharacterErrors } from './text-rules';

// Which part of a list a request asks for, the same on every list (resources, users): a page size, then
// either an offset (bounded by LIST_MAX_OFFSET) or a cursor, never both, and a count only when asked. The
// query schema has checked each parameter's shape; these rules need the settings or each other.

export interface ListWindow {
  limit: number;
  offset: number;
  after?: unknown[];
  countUpTo?: number;
}

/** What a list answers 422 for after its query schema passed: the window's rules (documented on every list). */
export const LIST_WINDOW_REFUSALS =
  'A cursor this list did not issue or took with another sort (`query.cursor`); an offset with a cursor or a search, or past LIST_MAX_OFFSET (`query.offset`)';

/** The window of a validated list query in `order` (tiebreak included); each broken rule is pushed to `errors`. */
export function readListWindow(
  query: Record<string, unknown>,
  settings: ListSettings,
  order: readonly SortKey[],
  kindOf: (field: string) => FieldKind | undefined,
  errors: FieldError[],
): ListWindow {
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  let after: unknown[] | undefined;
  if (typeof query.cursor === 'string') {
    if (query.offset !== undefined)
      errors.push({ field: 'query.offset', message: 'cannot be used with cursor: page with one or the other' });
    after = decodeCursor(query.cursor, order, kindOf);
    if (!after)
      errors.push({
        field: 'query.cursor',
        message: 'is not a cursor of this list (taken with another sort, or changed)',
      });
    // Its decoded values reach the database as every other value does: under the same rules (a forged NUL is a 422, not a 500).
    else errors.push(...nulCharacterErrors(after, 'query.cursor'));
  }
  if (offset > settings.maxOffset) {
    errors.push({
      field: 'query.offset',
      message: `is at most ${settings.maxOffset}: page deeper with cursor (each page's nextCursor)`,
    });
  }
  const countUpTo = query.count === true ? settings.countLimit : undefined;
  return { limit: Number(query.limit), offset, after, countUpTo };
}
