import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { Fields, RecordOf } from '../../stores/kit/fields';
import type { Include, JoinInclude } from '../../stores/kit/includes';
import type { OwnerScope } from '../../stores/kit/owner-scope';
import type { Resource } from '../../stores/kit/resource';
import type { ResourcePage, ResourceStore } from '../../stores/kit/resource-store';
import { unprocessable } from '../errors';
import { recordSchema } from './resource-schemas';

// `?include=` on a resource's list and single reads (the includes: src/stores/kit/includes.ts). Each record
// answers with `included` beside it: `included.project`, the record a reference points at (null if the caller
// may not see it, or it is gone), and `included.labels`, the records linked through a join resource (an
// array, in the order the links were made). One query per include per page: `WHERE id IN (…)` over the
// page's references, and for a join one over the page's ids (`WHERE ticket IN (…)`) then one over the
// linked ids; never one per record. Each resource read in its own read scope for the caller (scopeOf).

/** The most links one include reads for a page: past it the request is refused (422), asking a smaller page. */
export const MAX_INCLUDED_LINKS = 1000;

/** The query parameter, when the resource offers includes (the allowed names are checked by readInclude). */
export function includeParameter(includes: readonly Include[]): Record<string, TSchema> {
  if (includes.length === 0) return {};
  const names = includes.map((include) => include.name);
  const description = `Comma-separated, any of: ${names.join(', ')}. Each record gains \`included.<name>\`: for a reference the record it points at (null if not visible), for records linked through a join resource an array of them (at most ${MAX_INCLUDED_LINKS} links per page). One query per include per page.`;
  return { include: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description })) };
}

/** A query schema with `include` added. */
export function withIncludeQuery(includes: readonly Include[], query: TObject): TObject {
  if (includes.length === 0) return query;
  return Type.Object({ ...query.properties, ...includeParameter(includes) }, { additionalProperties: false });
}

/** A record as answered with `?include`: the record, plus `included` (only when asked for). */
export function includedRecordSchema(resource: Resource, includes: readonly Include[]): TSchema {
  const record = recordSchema(resource);
  if (includes.length === 0) return record;
  const included = Type.Object(
    Object.fromEntries(
      includes.map((include) => {
        const target = recordSchema(include.target);
        return [
          include.name,
          Type.Optional(include.kind === 'join' ? Type.Array(target) : Type.Union([target, Type.Null()])),
        ];
      }),
    ),
    {
      additionalProperties: false,
      description:
        'With `?include=`: the records the named references point at, and those linked through join resources',
    },
  );
  return Type.Object(
    { ...(record as TObject).properties, included: Type.Optional(included) },
    { additionalProperties: false },
  );
}

/** The includes `?include=` names (a repeat counts once); a name the resource does not offer is a 422 listing those it does. */
export function readInclude(includes: readonly Include[], value: unknown): Include[] {
  if (value === undefined) return [];
  const names = [...new Set(String(value).split(','))];
  const unknown = names.filter((name) => !includes.some((include) => include.name === name));
  if (unknown.length > 0)
    throw unprocessable([
      {
        field: 'query.include',
        message: `${unknown.map((name) => `'${name}'`).join(', ')} cannot be included: allowed are ${includes.map((include) => include.name).join(', ')}`,
      },
    ]);
  return names.map((name) => includes.find((include) => include.name === name)!);
}

/** Looks up the store of another resource (opened with this database). */
export type StoreOf = (resource: Resource) => ResourceStore<Fields>;
/** The scope a resource's records are read in for the caller: each include in its own resource's (access-policy.ts). */
export type ScopeOf = (resource: Resource) => OwnerScope;

type Row = Record<string, unknown>;

/** The records with these ids in the scope, by id: one query. */
async function recordsById(
  store: ResourceStore<Fields>,
  ids: readonly string[],
  scope: OwnerScope,
): Promise<Map<string, unknown>> {
  if (ids.length === 0) return new Map();
  const { items } = await store.list(scope, {
    where: [{ field: 'id', comparison: 'in', value: [...ids] }],
    sort: [],
    limit: ids.length,
    offset: 0,
  });
  return new Map(items.map((record) => [record.id, record]));
}

/** The distinct string values of a field over these rows. */
const idsOf = (rows: readonly Row[], field: string) => [
  ...new Set(rows.map((row) => row[field]).filter((id): id is string => typeof id === 'string')),
];

/** Each record's linked records through a join: the links of the page's ids (one query), then the records they point at (one query). */
async function linked(
  include: JoinInclude,
  records: readonly Row[],
  scopeOf: ScopeOf,
  storeOf: StoreOf,
): Promise<(record: Row) => unknown> {
  const page = await storeOf(include.join).list(scopeOf(include.join), {
    where: [{ field: include.from, comparison: 'in', value: idsOf(records, 'id') }],
    sort: [{ field: 'createdAt', descending: false }],
    limit: MAX_INCLUDED_LINKS,
    offset: 0,
  });
  if (page.nextCursor !== null) {
    throw unprocessable([
      {
        field: 'query.include',
        message: `${include.name}: these records have more than ${MAX_INCLUDED_LINKS} ${include.name} between them: ask a smaller limit`,
      },
    ]);
  }
  const links = page.items as Row[];
  const targets = await recordsById(storeOf(include.target), idsOf(links, include.to), scopeOf(include.target));
  return (record) =>
    links
      .filter((link) => link[include.from] === record.id && targets.has(link[include.to] as string))
      .map((link) => targets.get(link[include.to] as string));
}

/** Each record's referenced record (one query over the records' references). */
async function referenced(
  include: Include,
  records: readonly Row[],
  scopeOf: ScopeOf,
  storeOf: StoreOf,
): Promise<(record: Row) => unknown> {
  const found = await recordsById(storeOf(include.target), idsOf(records, include.name), scopeOf(include.target));
  return (record) =>
    typeof record[include.name] === 'string' ? (found.get(record[include.name] as string) ?? null) : null;
}

/** The records, each with `included`: one or two store calls per include, whatever the number of records. */
export async function withIncludedRecords<R>(
  records: readonly R[],
  include: readonly Include[],
  scopeOf: ScopeOf,
  storeOf: StoreOf,
): Promise<R[]> {
  if (include.length === 0 || records.length === 0) return [...records];
  const rows = records as readonly Row[];
  // The includes' reads do not depend on each other: they go to the database together.
  const readers = await Promise.all(
    include.map((one) =>
      one.kind === 'join' ? linked(one, rows, scopeOf, storeOf) : referenced(one, rows, scopeOf, storeOf),
    ),
  );
  return rows.map(
    (row) =>
      ({ ...row, included: Object.fromEntries(include.map((one, index) => [one.name, readers[index]!(row)])) }) as R,
  );
}

/** A page with each item's included records. */
export async function withIncluded<F extends Fields>(
  page: ResourcePage<RecordOf<F>>,
  include: readonly Include[],
  scopeOf: ScopeOf,
  storeOf: StoreOf,
): Promise<ResourcePage<RecordOf<F>>> {
  return { ...page, items: await withIncludedRecords(page.items, include, scopeOf, storeOf) };
}
