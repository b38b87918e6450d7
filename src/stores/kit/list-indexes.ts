import { createHash } from 'node:crypto';
import { columnOf, foldedColumnOf, foldedNameOf, type FieldKind } from './fields';
import type { Resource } from './resource';

// The indexes a resource's lists need, derived from its declaration, so that every page the API offers is
// a range of one index (docs/databases.md, "Lists at scale"): relational migrations create them (written
// out by the generator), MongoDB's schema declares them, and start-up refuses a table that lacks one.
//
//   - each sort key k (the declared ones, and createdAt, the default): (owner, k, id) for the owner's
//     list, (k, id) for the admin's list across owners; read forwards or backwards for -k;
//   - each equality filter f (string, boolean, reference) with each sort key k: (owner, f, k, id);
//   - each range filter f (integer, number, datetime) that is no sort key: (owner, f, id), so a narrow
//     range is read from the index (with a sort on another key it costs what the range holds).

/** The sort keys a list offers: the declared ones, then createdAt (the default order) if not declared. */
export function sortKeysOf(resource: Pick<Resource, 'sort'>): string[] {
  return [...new Set([...resource.sort, 'createdAt'])];
}

/** One list index, in the record's terms: whether the owner leads it, then its keys (id last). */
export interface ListIndex {
  owner: boolean;
  keys: string[];
  /** Keys read on their case-folded shadow (case-insensitive filters). */
  folded: string[];
  /** What it serves, for messages and docs. */
  serves: string;
}

const EQUALITY_KINDS: readonly FieldKind[] = ['string', 'boolean', 'reference'];

function kindOf(resource: Pick<Resource, 'fields'>, name: string): FieldKind {
  return resource.fields[name]?.kind ?? 'datetime'; // createdAt, updatedAt
}

export function listIndexes(resource: Pick<Resource, 'fields' | 'filters' | 'sort'>): ListIndex[] {
  const sortKeys = sortKeysOf(resource);
  const indexes: ListIndex[] = [];
  for (const key of sortKeys) {
    indexes.push({ owner: true, keys: [key, 'id'], folded: [], serves: `sort=${key}` });
    indexes.push({ owner: false, keys: [key, 'id'], folded: [], serves: `sort=${key} across owners (admin)` });
  }
  for (const filter of resource.filters) {
    const folded = resource.fields[filter]?.caseInsensitive ? [filter] : [];
    if (EQUALITY_KINDS.includes(kindOf(resource, filter))) {
      for (const key of sortKeys)
        if (key !== filter)
          indexes.push({ owner: true, keys: [filter, key, 'id'], folded, serves: `${filter}=… with sort=${key}` });
    } else if (!sortKeys.includes(filter)) {
      indexes.push({ owner: true, keys: [filter, 'id'], folded, serves: `${filter} ranges` });
    }
  }
  return indexes;
}

/** The relational columns of a list index. */
export function indexColumns(index: ListIndex): string[] {
  const column = (key: string) =>
    key === 'id' ? 'id' : index.folded.includes(key) ? foldedColumnOf(columnOf(key)) : columnOf(key);
  return [...(index.owner ? ['owner_id'] : []), ...index.keys.map(column)];
}

/** The MongoDB index keys of a list index (ascending: read backwards for a descending order). */
export function indexPaths(index: ListIndex): Record<string, 1> {
  const path = (key: string) => (key === 'id' ? '_id' : index.folded.includes(key) ? foldedNameOf(key) : key);
  return Object.fromEntries(
    [...(index.owner ? ['ownerId'] : []), ...index.keys.map(path)].map((name) => [name, 1 as const]),
  );
}

/**
 * The name of a relational list index on these columns: `<table>_by_<columns>` without owner_id's `_id`
 * and the trailing id, shortened with a hash past 60 characters (PostgreSQL keeps 63, MySQL 64). Migrations
 * find indexes by this name: never change it.
 */
export function listIndexName(table: string, columns: readonly string[]): string {
  const parts = columns
    .filter((column, index) => !(column === 'id' && index === columns.length - 1))
    .map((column) => (column === 'owner_id' ? 'owner' : column));
  const name = `${table}_by_${parts.join('_')}`;
  if (name.length <= 60) return name;
  return `${name.slice(0, 51)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}
