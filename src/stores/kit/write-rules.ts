import {
  CheckViolationError,
  DuplicateKeyError,
  ForeignKeyViolationError,
  MissingReferenceError,
  RuleViolationError,
  UniqueKeyError,
  WriteContendedError,
} from '../errors';
import { isId } from '../ids';
import { OWNER_ACCESS, referenceScope } from './access-policy';
import type { OwnerScope } from './owner-scope';
import { checkConstraintOf, checkInWords, checksOf, keepsCheck, mirrored, type FieldCheck } from './field-checks';
import { allowedInWords, checkConstraintName, hasRules, keepsRules, rulesOf } from './field-rules';
import type { Condition } from './list-query';
import { columnOf, type ReferencedResource } from './fields';
import { fieldEntries, type Resource } from './resource';

// The rules of a resource's writes, the same on every engine family: the record as it will be keeps the
// declared checks across its fields, then each reference names a record the owner may point at (checked
// before the write: MongoDB has no foreign key, and the relational engines' would not check the owner), then
// the module's own judge (resourceModule's checkWrite) has its say; a unique key's clash is named. An update
// is judged on the record as stored merged with the changes, and lands only while the record still is what
// was judged (its updatedAt, which every write moves): else it is read and judged again. Each family only
// says how to read, look up and write.

type Values = Record<string, unknown>;

/** A module's own judgement of a write: the record as it will be stored, and as it is (null on create). Throws to refuse. */
export type WriteJudge = (next: Values, stored: Values | null) => Promise<void>;

/** How a write is judged beyond the declaration: what it changes, what is stored, and the module's judge. */
interface Judgement {
  stored: Values | null;
  changed: readonly string[];
  judge?: WriteJudge;
}

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
async function checkReferences(
  resource: Resource,
  ownerId: string,
  values: Values,
  lookups: WriteLookups,
): Promise<void> {
  for (const name of referenceNames(resource)) {
    const value = values[name];
    if (value === null || value === undefined) continue;
    const target = resource.fields[name]!.references!.resource();
    if (!(
      typeof value === 'string' &&
      isId(value) &&
      (await lookups.recordInScope(target, value, referenceScope(target.access ?? OWNER_ACCESS, ownerId)))
    ))
      throw new MissingReferenceError(name);
  }
}

/** Which unique key the values clash on (the first declared one when a racing write has gone since). */
async function clashingKey(
  resource: Resource,
  ownerId: string,
  id: string | undefined,
  values: Values,
  lookups: WriteLookups,
): Promise<readonly string[]> {
  for (const key of resource.unique) {
    if (key.some((name) => values[name] === null || values[name] === undefined)) continue;
    if (await lookups.keyHeld(key, values, ownerId, id)) return key;
  }
  return resource.unique[0] ?? ['id'];
}

/** The check as told to the caller: by the side this write changed (a PATCH of startsAt alone hears about startsAt). */
function toldAs(check: FieldCheck, changed: readonly string[]): FieldCheck {
  return changed.includes(check.left) || !changed.includes(check.right) ? check : mirrored(check);
}

/** The first declared check the record as it will be breaks, as RuleViolationError. */
function refuseBrokenChecks(resource: Resource, values: Values, changed: readonly string[]): void {
  const broken = checksOf(resource).find((check) => !keepsCheck(check, values));
  if (!broken) return;
  const told = toldAs(broken, changed);
  throw new RuleViolationError(told.left, checkInWords(told, resource.fields));
}

/**
 * Runs a write of `values` (the record as it will be, `id` when it exists) for `ownerId`: the declared checks,
 * the references and the module's judge first, then the write; the engine's refusals come back as the
 * resource's errors, naming the fields.
 */
export async function writeUnderRules<T>(
  resource: Resource,
  ownerId: string,
  id: string | undefined,
  values: Values,
  lookups: WriteLookups,
  write: () => Promise<T>,
  judgement: Judgement = { stored: null, changed: Object.keys(values) },
): Promise<T> {
  refuseBrokenChecks(resource, values, judgement.changed);
  await checkReferences(resource, ownerId, values, lookups);
  await judgement.judge?.({ ...values, ownerId }, judgement.stored);
  try {
    return await write();
  } catch (error) {
    if (error instanceof DuplicateKeyError)
      throw new UniqueKeyError(await clashingKey(resource, ownerId, id, values, lookups), { cause: error });
    // A reference deleted between the check and the write (relational engines: their foreign key refuses it).
    if (error instanceof ForeignKeyViolationError)
      throw new MissingReferenceError(referenceNames(resource)[0] ?? 'id', { cause: error });
    if (error instanceof CheckViolationError) throw ruleViolation(resource, values, error);
    throw error;
  }
}

/**
 * The field a database's CHECK (or validator) refusal is about: the one its constraint names (a field's
 * `<table>_<column>_check`, a check's `<table>_<left>_<op>_<right>_check`), else the first whose value breaks
 * its rules, else the first check the values break, else the first ruled field or check.
 */
function ruleViolation(resource: Resource, values: Values, error: CheckViolationError): RuleViolationError {
  const checks = checksOf(resource);
  const ruled = fieldEntries(resource).filter(([, definition]) => hasRules(definition));
  const told = (check: FieldCheck) =>
    new RuleViolationError(check.left, checkInWords(check, resource.fields), { cause: error });
  const namedCheck = checks.find((check) => error.constraint === checkConstraintOf(resource.table, check));
  if (namedCheck) return told(namedCheck);
  const named =
    ruled.find(([name]) => error.constraint === checkConstraintName(resource.table, columnOf(name))) ??
    ruled.find(([field, candidate]) => !keepsRules(rulesOf(candidate), values[field]));
  const brokenCheck = named ? undefined : checks.find((check) => !keepsCheck(check, values));
  if (brokenCheck) return told(brokenCheck);
  const [name, definition] = named ?? ruled[0] ?? [];
  if (name && definition)
    return new RuleViolationError(name, `must be ${allowedInWords(rulesOf(definition))}`, { cause: error });
  return checks[0] ? told(checks[0]) : new RuleViolationError('id', error.message, { cause: error });
}

/** How many times an update reads and judges a record that other writes keep changing before it answers 409. */
const UPDATE_ATTEMPTS = 5;

/** What an update asks beyond its changes. */
export interface UpdateOptions {
  /** Conditions the record must meet (an action's `from` and `unless`): else it is not found. */
  guard?: readonly Condition[];
  /** Fields set to the write's time (an action's `'now'`): the same instant as updatedAt. */
  stamped?: readonly string[];
  judge?: WriteJudge;
}

/** An update's reads and write, in the engine family's terms (each under the store deadline). */
export interface RecordUpdate<T> {
  /** The record in the caller's scope meeting the guard, or null. */
  read(): Promise<Values | null>;
  /** Writes `values` and updatedAt `at` where the record still has `stored`'s updatedAt: the record written, or null when it has not. */
  write(stored: Values, values: Values, at: Date): Promise<T | null>;
}

/** The write's time: now, or just after the stored one, so that every write moves updatedAt (the next write's condition). */
function writeTime(stored: unknown): Date {
  return new Date(Math.max(Date.now(), stored instanceof Date ? stored.getTime() + 1 : 0));
}

/**
 * An update judged on the record as stored merged with the changes, written only while the record is still
 * what was judged; one that changed meanwhile is read and judged again. Null when no record meets the scope
 * and guard; WriteContendedError when other writes win every attempt.
 */
export async function updateUnderRules<T>(
  resource: Resource,
  changes: Values,
  options: UpdateOptions,
  lookups: WriteLookups,
  update: RecordUpdate<T>,
): Promise<T | null> {
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
    const stored = await update.read();
    if (!stored) return null;
    const at = writeTime(stored.updatedAt);
    const values = { ...changes, ...Object.fromEntries((options.stamped ?? []).map((name) => [name, new Date(at)])) };
    const judgement = { stored, changed: Object.keys(values), judge: options.judge };
    const next = { ...stored, ...values, updatedAt: at }; // the record as it will be stored
    const written = await writeUnderRules(
      resource,
      String(stored.ownerId),
      String(stored.id),
      next,
      lookups,
      () => update.write(stored, values, at),
      judgement,
    );
    if (written !== null) return written;
  }
  throw new WriteContendedError();
}
