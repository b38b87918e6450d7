import { CATALOGUE_OWNER, isCatalogue } from '../../src/stores/kit/access-policy';
import type { FieldDefinition, Fields } from '../../src/stores/kit/fields';
import type { Resource } from '../../src/stores/kit/resource';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import type { ResourceStore } from '../../src/stores/kit/resource-store';
import type { Database } from '../../src/stores/types';
import { ruledSample } from './rule-samples';
import { governedFields } from '../../src/stores/kit/actions';
import { keepingChecks } from './check-samples';

// Values for any resource's fields, as the kit's contract tests need them: each call gives values no other
// call gave (so unique keys never clash by accident), references pointing at a fresh record of the same
// owner (made through the referenced resource's own store, its references in turn).

let counter = 0;
const BASE_TIME = Date.parse('2030-01-01T00:00:00.000Z');

export type Values = Record<string, unknown>;

/**
 * A value of this kind, different from every earlier one (references excepted: see valuesFor); a field with
 * rules gets one they allow (rule-samples.ts), as different as they leave room for.
 */
export function sampleValue(definition: FieldDefinition, seed = (counter += 1)): unknown {
  const ruled = ruledSample(definition, seed);
  if (ruled !== undefined) return ruled;
  switch (definition.kind) {
    case 'string':
      return `s${seed}-${process.pid}`.slice(0, definition.maxLength);
    case 'text':
      return `Some text ${seed}.`;
    case 'integer':
      return seed;
    case 'number':
      return seed + 0.5;
    case 'boolean':
      return seed % 2 === 0;
    case 'datetime':
      return new Date(BASE_TIME + seed * 1000);
    case 'reference':
      throw new Error('references are made by valuesFor');
  }
}

/** A module's own samples for some fields: a fixed value, or one drawn from the sample counter (see shapeSamples). */
export type Samples = Record<string, unknown | ((seed: number) => unknown)>;

const shaped = new Map<string, Samples>();

/**
 * Gives a resource's suites the module's own samples for these fields (what its checkWrite hook accepts, e.g. a
 * booking's attendees within any room's capacity): every sample of them, in every suite, comes from here.
 */
export function shapeSamples(resource: Resource, samples: Samples): void {
  shaped.set(resource.name, { ...shaped.get(resource.name), ...samples });
}

/** A sample of one field of a resource: the module's own (shapeSamples), else sampleValue's. */
export function sampleOf(resource: Resource, name: string): unknown {
  const own = shaped.get(resource.name)?.[name];
  if (own === undefined) return sampleValue((resource.fields as Fields)[name]!);
  return typeof own === 'function' ? (own as (seed: number) => unknown)((counter += 1)) : own;
}

/** A value of the wrong type for a request body. */
export function wrongValue(definition: FieldDefinition): unknown {
  return definition.kind === 'integer'
    ? 1.5
    : definition.kind === 'number' || definition.kind === 'boolean'
      ? 'not-this'
      : definition.kind === 'datetime'
        ? 'next tuesday'
        : 42;
}

/** The store of a resource on an open database (its dependencies are opened with it). */
export function storeOf(database: Database, resource: Resource): ResourceStore<Fields> {
  return database.store(resourceStore(resource));
}

/** The fields a request body may not name: the read-only ones and those the actions set (governedFields). */
export function bodyless(resource: Resource): Set<string> {
  return new Set([
    ...Object.entries(resource.fields as Fields)
      .filter(([, definition]) => definition.readOnly)
      .map(([name]) => name),
    ...governedFields(resource.actions),
  ]);
}

/**
 * Values for every writable field (`required`: only those a create must carry, defaulted ones left out),
 * fresh; each reference points at a new record of the same owner, unless `given` names it (those values are
 * taken as they are: no record is made for them). Read-only fields are left to the store and the actions.
 */
export async function valuesFor(
  database: Database,
  resource: Resource,
  ownerId: string,
  required = false,
  given: Values = {},
): Promise<Values> {
  const values: Values = { ...given };
  const fixed = new Set(Object.keys(given));
  const left = bodyless(resource);
  for (const [name, definition] of Object.entries(resource.fields as Fields)) {
    if (name in given || left.has(name) || (required && definition.omittable)) continue;
    if (definition.kind === 'reference') {
      const target = definition.references!.resource() as Resource;
      const owner = ownerOf(target, ownerId);
      values[name] = (
        await storeOf(database, target).create(owner, (await valuesFor(database, target, owner, true)) as never)
      ).id;
    } else {
      values[name] = sampleOf(resource, name);
    }
  }
  // Fields the create leaves out keep their defaults: a check is kept by the values the record will hold.
  const held = Object.fromEntries(
    Object.entries(resource.fields as Fields).flatMap(([name, definition]) =>
      name in values || definition.default === undefined ? [] : [[name, definition.default]],
    ),
  );
  const kept = keepingChecks(resource, { ...held, ...values }, new Set([...fixed, ...Object.keys(held)]));
  return Object.fromEntries(Object.keys(values).map((name) => [name, kept[name]]));
}

/** Who owns a record of `resource` made for `ownerId`: that user, or the catalogue (access-policy.ts). */
export function ownerOf(resource: Resource, ownerId: string): string {
  return isCatalogue(resource.access) ? CATALOGUE_OWNER : ownerId;
}

/** Values as a JSON body carries them (datetimes as ISO strings). */
export function asJson(values: Values): Values {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [name, value instanceof Date ? value.toISOString() : value]),
  );
}

/** The writable fields that are not references: the ones a test can vary freely. */
export function plainFields(resource: Resource): [string, FieldDefinition][] {
  const left = bodyless(resource);
  return Object.entries(resource.fields as Fields).filter(
    ([name, definition]) => definition.kind !== 'reference' && !left.has(name),
  );
}

/**
 * Changes for an update, all different from the record's values: a fresh value for each field that is not a
 * reference; a resource of references only (a join resource) has each pointed at another fresh record of
 * the same owner instead, which is a change too.
 */
export async function changesFor(database: Database, resource: Resource, ownerId: string): Promise<Values> {
  const plain = plainFields(resource);
  if (plain.length > 0)
    return keepingChecks(resource, Object.fromEntries(plain.map(([name]) => [name, sampleOf(resource, name)])));
  return valuesFor(database, resource, ownerId);
}

/** The fields with a declared default, and the value a record gets when the field is left out. */
export function defaultedFields(resource: Resource): [string, unknown][] {
  return Object.entries(resource.fields as Fields).flatMap(([name, definition]) =>
    definition.default === undefined ? [] : [[name, definition.default] as [string, unknown]],
  );
}

/**
 * What `?q=` must and must not find, the same on every engine (shadows.ts): case and accents ignored, `%`,
 * `_`, `[` and `!` plain characters. Each query: the values it finds, among all of `SEARCH_VALUES`.
 */
export const SEARCH_VALUES = [
  'Une École',
  'ÉCOLE',
  'ecole',
  'ecale',
  '100% sure',
  '1000 sure',
  'a_b',
  'axb',
  'x[a]y',
  'hey!x',
] as const;
export const SEARCH_CASES: readonly { q: string; finds: readonly string[] }[] = [
  { q: 'école', finds: ['Une École', 'ÉCOLE', 'ecole'] },
  { q: 'ECOLE', finds: ['Une École', 'ÉCOLE', 'ecole'] },
  { q: 'Ecole', finds: ['Une École', 'ÉCOLE', 'ecole'] },
  { q: '100%', finds: ['100% sure'] },
  { q: 'a_b', finds: ['a_b'] },
  { q: '[a]', finds: ['x[a]y'] },
  { q: 'y!x', finds: ['hey!x'] },
  { q: 'SURE', finds: ['100% sure', '1000 sure'] },
];
