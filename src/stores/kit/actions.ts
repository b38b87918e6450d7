import { allowedInWords, keepsRules, rulesOf } from './field-rules';
import type { FieldDefinition, Fields, FieldValues } from './fields';

// Actions: a named change to one record that a caller may ask for but not write in a body (archive, publish),
// declared with the resource and answered at `POST /api/<name>/:id/<action>`. Each sets fields to fixed
// values or to the time of the call, optionally refused (409) while a field is set (`unless`) or unless a
// field holds one of some values (`from`: the states an action starts from). A field any action sets is
// governed by the actions: request bodies may not name it (422), so the state and the fields that go with it
// (status and closedAt) change together or not at all.

/** What an action may write into one field: `'now'` (datetime fields: the time of the call), a value, or null. */
export type ActionValue = 'now' | FieldValues[keyof FieldValues] | null;

export interface ActionDeclaration<Name extends string = string> {
  /** Who may run it on a record: its owner or an admin (the default), or admins only (403 for others). */
  access?: 'owner-or-admin' | 'admin';
  /** The fields it writes, each to `'now'` (datetime), a value of the field's kind, or null (optional fields). */
  set: Partial<Record<Name, ActionValue>>;
  /** Refused (409) while this field is set (not null, not false): `unless: 'archivedAt'` archives once. */
  unless?: Name;
  /**
   * Allowed only while each named field holds one of its listed values: `from: { status: ['open', 'in_progress'] }`
   * (an enum field's values, or a string's). Otherwise 409 naming the current value (stateConflictMessage).
   */
  from?: Partial<Record<Name, readonly StateValue[]>>;
  /** The 409 message when `unless` holds (default: `Already <action>d`, e.g. "Already archived"). */
  conflict?: string;
  /** For the API document. */
  summary?: string;
}

/** A value an action may start from: a string (an enum's value), an integer or a boolean. */
export type StateValue = string | number | boolean;

/** `archive` → `archived`, `publish` → `published`: the default 409 message's word. */
function pastTense(action: string): string {
  return action.endsWith('e') ? `${action}d` : `${action}ed`;
}

/** The 409 message of an action whose `unless` field is set. */
export function conflictMessage(name: string, action: ActionDeclaration): string {
  return action.conflict ?? `Already ${pastTense(name)}`;
}

/** The 409 message of an action refused by a `from` field's current value: `Cannot close while status is closed`. */
export function stateConflictMessage(name: string, field: string, current: unknown): string {
  return `Cannot ${name} while ${field} is ${current === null || current === undefined ? 'empty' : String(current)}`;
}

/** The 409 a `from` action documents (its message names the value the record holds then). */
export function stateConflictDescription(name: string, action: ActionDeclaration): string {
  const from = Object.entries(action.from ?? {}).map(
    ([field, values]) => `${field} is ${(values as StateValue[]).join(' or ')}`,
  );
  return `Allowed only while ${from.join(' and ')}: otherwise \`${stateConflictMessage(name, '<field>', '<its value>')}\``;
}

/** The `from` field (if any) whose current value refuses the action, given the record as it is now. */
export function refusingState(action: ActionDeclaration, record: Record<string, unknown>): string | undefined {
  return Object.entries(action.from ?? {}).find(
    ([field, values]) => !(values as StateValue[]).includes(record[field] as StateValue),
  )?.[0];
}

/** The values an action writes, its `'now'` fields left to the store (stampedFields: the write's one time, as updatedAt). */
export function actionChanges(action: ActionDeclaration): Record<string, unknown> {
  return Object.fromEntries(Object.entries(action.set).filter(([, value]) => value !== 'now'));
}

/** The fields an action sets to the write's time. */
export function stampedFields(action: ActionDeclaration): string[] {
  return Object.entries(action.set).flatMap(([name, value]) => (value === 'now' ? [name] : []));
}

/** The fields the actions set: request bodies may not name them (the routes treat them as read-only). */
export function governedFields(actions: Readonly<Record<string, ActionDeclaration>>): Set<string> {
  return new Set(Object.values(actions).flatMap((action) => Object.keys(action.set ?? {})));
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
    if (action.access !== undefined && action.access !== 'owner-or-admin' && action.access !== 'admin')
      problems.push(`${where}: access is 'owner-or-admin' or 'admin'`);
    const set = Object.entries(action.set ?? {});
    if (set.length === 0) problems.push(`${where}: sets no field`);
    for (const [fieldName, value] of set) {
      const definition = fields[fieldName];
      if (!definition) problems.push(`${where}: sets '${fieldName}', which is not one of the fields`);
      else problems.push(...valueProblems(`${where}: ${fieldName}`, definition, value));
    }
    const unless = action.unless === undefined ? undefined : fields[action.unless];
    if (action.unless !== undefined && !unless)
      problems.push(`${where}: unless '${action.unless}' is not one of the fields`);
    if (unless?.kind === 'boolean' && unless.optional)
      problems.push(
        `${where}: unless '${action.unless}' is an optional boolean (null and false would both mean unset): make it required with a default`,
      );
    problems.push(...fromProblems(where, fields, action));
  }
  for (const name of governedFields(actions)) {
    const definition = fields[name];
    if (definition && !definition.optional && definition.default === undefined)
      problems.push(
        `'${name}' is set by an action, so request bodies may not name it: make it optional or give it a default`,
      );
  }
  return problems;
}

/** The values a field allows, when it declares them (`enum`). */
function allowedValues(definition: FieldDefinition): readonly unknown[] | undefined {
  return (definition as { readonly enum?: readonly unknown[] }).enum;
}

function fromProblems(where: string, fields: Fields, action: ActionDeclaration): string[] {
  const problems: string[] = [];
  for (const [fieldName, values] of Object.entries(action.from ?? {})) {
    const definition = fields[fieldName];
    if (!definition) problems.push(`${where}: from '${fieldName}', which is not one of the fields`);
    else if (!['string', 'integer', 'boolean'].includes(definition.kind))
      problems.push(`${where}: from '${fieldName}': states are string (enum), integer or boolean fields`);
    else if (!Array.isArray(values) || values.length === 0)
      problems.push(`${where}: from '${fieldName}' lists no value`);
    else {
      const allowed = allowedValues(definition);
      for (const value of values) {
        if (!kindMatches(definition, value))
          problems.push(`${where}: from ${fieldName} ${JSON.stringify(value)} is not ${aKind(definition)}`);
        else if (allowed && !allowed.includes(value))
          problems.push(
            `${where}: from ${fieldName} ${JSON.stringify(value)} is not one of its values (${allowed.join(', ')})`,
          );
      }
    }
  }
  return problems;
}

function valueProblems(where: string, definition: FieldDefinition, value: ActionValue | undefined): string[] {
  if (value === 'now') return definition.kind === 'datetime' ? [] : [`${where}: 'now' is for datetime fields`];
  if (value === null) return definition.optional ? [] : [`${where}: null, but the field is not optional`];
  if (definition.kind === 'reference') return [`${where}: an action cannot set a reference`];
  if (!kindMatches(definition, value)) return [`${where}: ${JSON.stringify(value)} is not ${aKind(definition)}`];
  return keepsRules(rulesOf(definition), value)
    ? []
    : [`${where}: ${JSON.stringify(value)} is not ${allowedInWords(rulesOf(definition))}`];
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
      return (
        typeof value === 'string' &&
        value.length <= (definition.maxLength ?? Infinity) &&
        (definition.kind === 'text' || value.length > 0)
      );
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
