import { allowedInWords, keepsRules, rulesOf } from '../../stores/kit/field-rules';
import type { FieldKind } from '../../stores/kit/fields';
import {
  builtInKind,
  withTiebreak,
  type Comparison,
  type Condition,
  type ListQuery,
  type SortKey,
} from '../../stores/kit/list-query';
import type { ListSettings } from '../../stores/kit/pagination';
import type { Resource } from '../../stores/kit/resource';
import type { FieldError } from '../envelope';
import { unprocessable } from '../errors';
import { readListWindow } from './list-window';
import { MAX_IN_VALUES, queryableDefinition } from './resource-schemas';

// The validated query string of a list (see listQuerySchema) → the store's ListQuery. The schema has
// checked each parameter's shape and coerced single values; what is left here is reading `[in]` lists as
// the field's kind, the sort keys, and the cursor, each refused with 422 naming the parameter.

const DECIMAL = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ } as const;

/** One `[in]` item as the field's kind, or undefined when it is not one. */
function readItem(kind: FieldKind, item: string): unknown {
  switch (kind) {
    case 'integer':
      return DECIMAL.integer.test(item) && Number.isSafeInteger(Number(item)) ? Number(item) : undefined;
    case 'number':
      return DECIMAL.number.test(item) ? Number(item) : undefined;
    case 'datetime': {
      const date = new Date(item);
      return /^\d{4}-\d\d-\d\dT/.test(item) && !Number.isNaN(date.getTime()) ? date : undefined;
    }
    default:
      return item;
  }
}

/** `sort`: one key of the schema's enum, `-` for descending (the default order when absent). */
function readSort(value: unknown): SortKey[] {
  if (typeof value !== 'string') return [];
  return [{ field: value.replace(/^-/, ''), descending: value.startsWith('-') }];
}

/** The store's ListQuery for this list, from its validated query; a 422 names every bad parameter. */
export function readListQuery(resource: Resource, query: Record<string, unknown>, settings: ListSettings): ListQuery {
  const errors: FieldError[] = [];
  const where: Condition[] = [];
  for (const [parameter, value] of Object.entries(query)) {
    const match = /^([A-Za-z0-9]+)(?:\[(in|gt|gte|lt|lte|null)\])?$/.exec(parameter);
    if (!match || !resource.filters.includes(match[1]!)) continue; // limit, offset, cursor, sort, q, ownerId
    const field = match[1]!;
    const comparison = (match[2] ?? 'eq') as Comparison;
    const kind = queryableDefinition(resource, field).kind;
    const rules = rulesOf(queryableDefinition(resource, field));
    if (comparison === 'in') {
      const items = String(value)
        .split(',')
        .map((item) => readItem(kind, item));
      if (items.length > MAX_IN_VALUES)
        errors.push({ field: `query.${parameter}`, message: `at most ${MAX_IN_VALUES} values` });
      else if (items.some((item) => item === undefined))
        errors.push({ field: `query.${parameter}`, message: `each value must be a ${kind}` });
      else if (items.some((item) => !keepsRules(rules, item)))
        errors.push({ field: `query.${parameter}`, message: `each value must be ${allowedInWords(rules)}` });
      else where.push({ field, comparison, value: items });
    } else {
      where.push({
        field,
        comparison,
        value: kind === 'datetime' && comparison !== 'null' ? new Date(String(value)) : value,
      });
    }
  }
  // A search page is a bounded walk on engines whose index cannot serve the term: an offset would end that walk
  // before the rows it skips, so a search pages with its cursor alone, the same on every engine.
  if (typeof query.q === 'string' && query.offset !== undefined && Number(query.offset) > 0)
    errors.push({
      field: 'query.offset',
      message: "cannot be used with q: a search pages with cursor (each page's nextCursor)",
    });
  const sort = readSort(query.sort);
  const window = readListWindow(
    query,
    settings,
    withTiebreak(sort),
    (field) => builtInKind(field) ?? resource.fields[field]?.kind,
    errors,
  );
  if (errors.length > 0) throw unprocessable(errors);
  return {
    where,
    sort,
    ...window,
    ...(typeof query.q === 'string' ? { search: query.q, scanLimit: settings.searchScanLimit } : {}),
  };
}
