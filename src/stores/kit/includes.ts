import type { Fields } from './fields';
import { referrersOf, type Resource } from './resource';

// What `?include=` may name on a resource's reads, derived from the declarations:
//   - each reference field, forward: `?include=project` answers the record `project` points at;
//   - each resource linked through a join resource, backward: a resource with exactly two references, one
//     to this resource and one to another (`ticket-labels`: ticket → tickets, label → labels), offers the
//     other's records under its name: `GET /api/tickets?include=labels` answers each ticket's labels.
// A join resource's name may not clash with a field or another include: such a join is left out.

/** `project`: the record a reference field points at. */
export interface ReferenceInclude {
  kind: 'reference';
  name: string;
  target: Resource;
}

/** `labels`: the records linked to this one through a join resource's two references. */
export interface JoinInclude {
  kind: 'join';
  name: string;
  target: Resource;
  join: Resource;
  /** The join's reference to the record being read (`ticket`). */
  from: string;
  /** The join's reference to the included records (`label`). */
  to: string;
}

export type Include = ReferenceInclude | JoinInclude;

const referenceNames = (resource: Resource) =>
  Object.entries(resource.fields as Fields).filter(([, definition]) => definition.kind === 'reference');

/**
 * The includes a resource's reads offer. `available` says whether a join resource's store is opened with
 * this database (its module mounted): a join declared but not served is no include.
 */
export function includesOf(resource: Resource, available: (join: Resource) => boolean = () => true): Include[] {
  const includes: Include[] = referenceNames(resource).map(([name, definition]) => ({
    kind: 'reference',
    name,
    target: definition.references!.resource() as Resource,
  }));
  const taken = new Set<string>(Object.keys(resource.fields));
  for (const { resource: join, field: from } of referrersOf(resource)) {
    const references = referenceNames(join);
    if (references.length !== 2 || !available(join)) continue;
    const [to, definition] = references.find(([name]) => name !== from)!;
    const target = definition.references!.resource() as Resource;
    if (taken.has(target.name) || target.name === resource.name) continue;
    taken.add(target.name);
    includes.push({ kind: 'join', name: target.name, target, join, from, to });
  }
  return includes;
}
