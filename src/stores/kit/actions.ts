import { allowedInWords, keepsRules, rulesOf } from './field-rules';
import type { FieldDefinition, Fields, FieldValues } from './fields';

// Actions: a named change to one record that a caller may ask for but not write in a body (archive, publish),
// declared with the resource and answered at `POST /api/<name>/:id/<action>`. Each sets fields (often
// read-only ones) to fixed values or to the time of the call, optionally refused (409) while a field is set.

/** What an action may write into one field: `'now'` (datetime fields: the time of the call), a value, or null. */
export type ActionValue = 'now' | FieldValues[keyof FieldValues] | null;

export interface ActionDeclaration<Name extends string = string> {
  /** Who may run it on a record: its owner or an admin (the default), or admins only (403 for others). */
  access?: 'owner-or-admin' | 'admin';
  /** The fields it writes, each to `'now'` (datetime), a value of the field's kind, or null (optional fields). */
  set: Partial<Record<Name, ActionValue>>;
  /** Refused (409) while this field is set (not null, not false): `unless: 'archivedAt'` archives once. */
  unless?: Name;
  /** The 409 message when `unless` holds (default: `Already <action>d`, e.g. "Already archived"). */
  conflict?: string;
  /** For the API document. */
  summary?: string;
}

/** `archive` → `archived`, `publish` → `published`: the default 409 message's word. */
function pastTense(action: string): string {
  return action.endsWith('e') ? `${action}d` : `${action}ed`;
}

/** The 409 message of an action whose `unless` field is set. */
export function conflictMessage(name: string, action: ActionDeclaration): string {
  return action.conflict ?? `Already ${pastTense(name)}`;
}

/** The changes an action writes now: `'now'` becomes the time of the call. */
export function actionChanges(action: ActionDeclaration, now = new Date()): Record<string, unknown> {
  return Object.fromEntries(Object.entries(action.set).map(([name, value]) => [name, value === 'now' ? new Date(now) : value]));
}

/** Whether a record's field counts as set for `unless`: a value, and not false. */
export function isSet(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false;
}

const ACTION_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** Each mistake in a resource's actions, in words (empty when they are right). */
export function actionProblems(fields: Fields, actions: Record<string, ActionDeclaration>): string[] {
  const problems: string[] = [];
  for (const [name, action] of Object.entries(actions)) {
    const where = `action '${name}'`;
    if (!ACTION_NAME.test(name)) problems.push(`${where}: names are lower-case words joined by dashes`);
    if (action.access !== undefined && action.access !== 'owner-or-admin' && action.access !== 'admin') problems.push(`${where}: access is 'owner-or-admin' or 'admin'`);
    const set = Object.entries(action.set ?? {});
    if (set.length === 0) problems.push(`${where}: sets no field`);
    for (const [fieldName, value] of set) {
      const definition = fields[fieldName];
      if (!definition) problems.push(`${where}: sets '${fieldName}', which is not one of the fields`);
      else problems.push(...valueProblems(`${where}: ${fieldName}`, definition, value));
    }
    const unless = action.unless === undefined ? undefined : fields[action.unless];
    if (action.unless !== undefined && !unless) problems.push(`${where}: unless '${action.unless}' is not one of the fields`);
    if (unless?.kind === 'boolean' && unless.optional) problems.push(`${where}: unless '${action.unless}' is an optional boolean (null and false would both mean unset): make it required with a default`);
  }
  return problems;
}

function valueProblems(where: string, definition: FieldDefinition, value: ActionValue | undefined): string[] {
  if (value === 'now') return definition.kind === 'datetime' ? [] : [`${where}: 'now' is for datetime fields`];
  if (value === null) return definition.optional ? [] : [`${where}: null, but the field is not optional`];
  if (definition.kind === 'reference') return [`${where}: an action cannot set a reference`];
  if (!kindMatches(definition, value)) return [`${where}: ${JSON.stringify(value)} is not ${aKind(definition)}`];
  return keepsRules(rulesOf(definition), value) ? [] : [`${where}: ${JSON.stringify(value)} is not ${allowedInWords(rulesOf(definition))}`];
}

/** `a string`, `an integer`: a kind in a message. */
export function aKind(definition: FieldDefinition): string {
  return `${/^[aeiou]/.test(definition.kind) ? 'an' : 'a'} ${definition.kind}`;
}

/** Whether a declared value (a default, an action's) is of the field's kind. */
export function kindMatches(definition: FieldDefinition, value: unknown): boolean {
  switch (definition.kind) {
    case 'string':
    case 'text':
      return typeof value === 'string' && value.length <= (definition.maxLength ?? Infinity) && (definition.kind === 'text' || value.length > 0);
    case 'integer':
      return Number.isSafeInteger(value) && Math.abs(value as number) <= 2_147_483_647;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'datetime':
      return value instanceof Date && !Number.isNaN(value.getTime());
    default:
      return false;
  }
}
