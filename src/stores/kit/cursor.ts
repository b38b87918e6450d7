import type { FieldKind } from './fields';
import type { SortKey } from './list-query';

// A cursor names the last record of a page by its sort values (id last), and the order it was taken in, so
// the next page starts right after it whatever was inserted or deleted meanwhile. It is opaque to clients
// (base64url JSON) but not secret: it holds only values the caller was just shown.

const MAX_CURSOR_LENGTH = 2048;

function signature(order: readonly SortKey[]): string {
  return order.map((key) => `${key.descending ? '-' : ''}${key.field}`).join(',');
}

/** The cursor after this record, in this order (tiebreak included). */
export function encodeCursor(order: readonly SortKey[], record: Record<string, unknown>): string {
  const values = order.map((key) => {
    const value = record[key.field] ?? null;
    return value instanceof Date ? value.toISOString() : value;
  });
  return Buffer.from(JSON.stringify({ o: signature(order), v: values })).toString('base64url');
}

function revive(value: unknown, kind: FieldKind | undefined): unknown {
  if (value === null) return null;
  switch (kind) {
    case 'datetime': {
      if (typeof value !== 'string') return undefined;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? undefined : date;
    }
    case 'integer':
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    default:
      return typeof value === 'string' ? value : undefined;
  }
}

/**
 * The sort values a cursor holds, typed as the fields are; undefined when it is not one of ours, or was
 * taken in another order (the caller changed `sort` between pages).
 */
export function decodeCursor(
  cursor: string,
  order: readonly SortKey[],
  kindOf: (field: string) => FieldKind | undefined,
): unknown[] | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { o, v } = (parsed ?? {}) as { o?: unknown; v?: unknown };
  if (o !== signature(order) || !Array.isArray(v) || v.length !== order.length) return undefined;
  const values = v.map((value, index) => revive(value, kindOf(order[index]!.field)));
  if (values.some((value) => value === undefined) || values.at(-1) === null) return undefined;
  return values;
}
