import { CheckViolationError, DuplicateKeyError, ForeignKeyViolationError, MissingReferenceError, RuleViolationError, UniqueKeyError } from '../errors';
import { isId } from '../ids';
import { OWNER_ACCESS, referenceScope } from './access-policy';
import type { OwnerScope } from './owner-scope';
import { allowedInWords, checkConstraintName, hasRules, keepsRules, rulesOf } from './field-rules';
import { columnOf, type ReferencedResource } from './fields';
import { fieldEntries, type Resource } from './resource';

// The rules of a resource's writes, the same on every engine family: each reference names a record of the
// same owner (checked before the write: MongoDB has no foreign key, and the relational engines' would not
// check the owner), and a unique key's clash is named. Each family only says how to look a record up.

type Values = Record<string, unknown>;

/** The two look-ups the rules need, in the engine family's own terms (each under the store deadline). */
export interface WriteLookups {
  /** Whether `target` holds a record with this id in the scope (owned by `scope.ownerId`; any owner without one). */
  recordInScope(target: ReferencedResource, id: string, scope: OwnerScope): Promise<boolean>;
  /** Whether another record of `ownerId` (not `exceptId`) holds these values on this unique key. */
  keyHeld(key: readonly string[], values: Values, ownerId: string, exceptId: string | undefined): Promise<boolean>;
}

function referenceNames(resource: Resource): string[] {
  return fieldEntries(resource)
    .filter(([, definition]) => definition.kind === 'reference')
    .map(([name]) => name);
}

/**
 * Each reference given names a record the record's owner may point at (the same owner's, the catalogue's, or any
 * where all read the target: referenceScope), or MissingReferenceError names the field.
 */
async function checkReferences(resource: Resource, ownerId: string, values: Values, lookups: WriteLookups): Promise<void> {
  for (const name of referenceNames(resource)) {
    const value = values[name];
    if (value === null || value === undefined) continue;
    const target = resource.fields[name]!.references!.resource();
    if (!(typeof value === 'string' && isId(value) && (await lookups.recordInScope(target, value, referenceScope(target.access ?? OWNER_ACCESS, ownerId))))) throw new MissingReferenceError(name);
  }
}

/** Which unique key the values clash on (the first declared one when a racing write has gone since). */
async function clashingKey(resource: Resource, ownerId: string, id: string | undefined, values: Values, lookups: WriteLookups): Promise<readonly string[]> {
  for (const key of resource.unique) {
    if (key.some((name) => values[name] === null || values[name] === undefined)) continue;
    if (await lookups.keyHeld(key, values, ownerId, id)) return key;
  }
  return resource.unique[0] ?? ['id'];
}

/**
 * Runs a write of `values` (the record as it will be, `id` when it exists) for `ownerId`: references checked
 * first, then the write; the engine's refusals come back as the resource's errors, naming the fields.
 */
export async function writeUnderRules<T>(resource: Resource, ownerId: string, id: string | undefined, values: Values, lookups: WriteLookups, write: () => Promise<T>): Promise<T> {
  await checkReferences(resource, ownerId, values, lookups);
  try {
    return await write();
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw new UniqueKeyError(await clashingKey(resource, ownerId, id, values, lookups), { cause: error });
    // A reference deleted between the check and the write (relational engines: their foreign key refuses it).
    if (error instanceof ForeignKeyViolationError) throw new MissingReferenceError(referenceNames(resource)[0] ?? 'id', { cause: error });
    if (error instanceof CheckViolationError) throw ruleViolation(resource, values, error);
    throw error;
  }
}

/**
 * The field a database's CHECK (or validator) refusal is about: the one its constraint names
 * (`<table>_<column>_check`), else the first whose value breaks its rules, else the first ruled field.
 */
function ruleViolation(resource: Resource, values: Values, error: CheckViolationError): RuleViolationError {
  const ruled = fieldEntries(resource).filter(([, definition]) => hasRules(definition));
  const named = ruled.find(([name]) => error.constraint === checkConstraintName(resource.table, columnOf(name)));
  const [name, definition] = named ?? ruled.find(([field, candidate]) => !keepsRules(rulesOf(candidate), values[field])) ?? ruled[0] ?? ['id', undefined];
  return new RuleViolationError(name, definition ? `must be ${allowedInWords(rulesOf(definition))}` : error.message, { cause: error });
}
