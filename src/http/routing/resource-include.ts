import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { Fields, RecordOf } from '../../stores/kit/fields';
import type { OwnerScope } from '../../stores/kit/owner-scope';
import { fieldEntries, type Resource } from '../../stores/kit/resource';
import type { ResourcePage, ResourceStore } from '../../stores/kit/resource-store';
import { recordSchema } from './resource-schemas';

// `?include=tag` on a resource's list: each item answers with the records its references point at beside
// it, as `included: { tag: {…} }` (the reference itself stays the id). One query per included field per
// page (`WHERE id IN (…)` over the page's ids, in the caller's scope), never one per row. A record the
// caller may not see (another owner's, for a non-admin) or one gone meanwhile is null.

/** The reference fields a list may include. */
export function includableFields(resource: Resource): string[] {
  return fieldEntries(resource)
    .filter(([, definition]) => definition.kind === 'reference')
    .map(([name]) => name);
}

/** The list query with `include` added, when the resource has references. */
export function withIncludeQuery(resource: Resource, query: TObject): TObject {
  const fields = includableFields(resource);
  if (fields.length === 0) return query;
  const one = `(${fields.join('|')})`;
  const include = Type.Optional(
    Type.String({ pattern: `^${one}(,${one})*$`, maxLength: 400, description: `Comma-separated references (${fields.join(', ')}): each item gains \`included.<field>\`, the record it points at (null if not visible); one query per field per page` }),
  );
  return Type.Object({ ...query.properties, include }, { additionalProperties: false });
}

/** A listed record as answered with `?include`: the record, plus `included` (only when asked for). */
export function includedRecordSchema(resource: Resource): TSchema {
  const record = recordSchema(resource);
  const fields = includableFields(resource);
  if (fields.length === 0) return record;
  const included = Type.Object(
    Object.fromEntries(fields.map((name) => [name, Type.Optional(Type.Union([recordSchema(resource.fields[name]!.references!.resource() as Resource), Type.Null()]))])),
    { additionalProperties: false, description: 'With `?include=`: the records the named references point at' },
  );
  return Type.Object({ ...(record as TObject).properties, included: Type.Optional(included) }, { additionalProperties: false });
}

/** The references `?include=` names (the query schema's pattern admits only this resource's references; a repeat counts once). */
export function readInclude(value: unknown): string[] {
  if (value === undefined || value === '') return [];
  return [...new Set(String(value).split(','))];
}

/** Looks up the store of another resource (one the listed resource references: opened with it). */
export type StoreOf = (resource: Resource) => ResourceStore<Fields>;

/** The page with each item's included records: one store call per included field. */
export async function withIncluded<F extends Fields>(resource: Resource, page: ResourcePage<RecordOf<F>>, include: readonly string[], scope: OwnerScope, storeOf: StoreOf): Promise<ResourcePage<RecordOf<F>>> {
  if (include.length === 0 || page.items.length === 0) return page;
  // The fields' reads do not depend on each other: they go to the database together.
  const found = new Map(
    await Promise.all(
      include.map(async (name) => {
        const ids = [...new Set(page.items.map((item) => (item as Record<string, unknown>)[name]).filter((id): id is string => typeof id === 'string'))];
        const target = resource.fields[name]!.references!.resource() as Resource;
        const records = ids.length === 0 ? [] : (await storeOf(target).list(scope, { where: [{ field: 'id', comparison: 'in', value: ids }], sort: [], limit: ids.length, offset: 0 })).items;
        return [name, new Map<string, unknown>(records.map((record) => [record.id, record]))] as const;
      }),
    ),
  );
  const items = page.items.map((item) => {
    const row = item as Record<string, unknown>;
    return { ...item, included: Object.fromEntries(include.map((name) => [name, typeof row[name] === 'string' ? (found.get(name)!.get(row[name]) ?? null) : null])) };
  });
  return { ...page, items };
}
