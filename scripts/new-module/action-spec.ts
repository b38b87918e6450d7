import { columnOf } from '../../src/stores/kit/fields';
import { literal, parseDefault, SpecError, type FieldSpec } from './field-spec';

// `--action` of new:module and new:field. Two forms:
//   archive:archivedAt                      sets the datetime to now, once (409 while it is set);
//   close:status=closed,closedAt=now        sets each field to a value, `now` (datetimes) or `null`,
//     with `--from open,in_progress`        only while the action's state field (the one it sets that is
//                                           not a datetime) holds one of these values (409 naming it).
// A field named that does not exist yet is added: an optional datetime (for `now` or `null`), set by
// actions only. The fields an action sets are read-only in request bodies (the kit's rule).

/** An action as resource.ts declares it. */
export interface ActionSpec {
  name: string;
  /** Each field it sets and the TypeScript literal it sets it to (`'now'`, `null`, `'closed'`). */
  set: [field: string, value: string][];
  /** The state field and the literals of the values it starts from (`--from`). */
  from?: { field: string; values: string[] };
  /** The one-datetime form: refused while this field is set. */
  unless?: string;
}

const ACTION = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*):(.+)$/;
const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;
const RESERVED = new Set(['id', 'ownerId', 'createdAt', 'updatedAt']);

/** A field the action names but the module lacks: an optional datetime only actions set. */
function addedDatetime(value: string, name: string, seen: Set<string>): FieldSpec {
  if (!FIELD_NAME.test(name) || RESERVED.has(name) || seen.has(name))
    throw new SpecError(`--action ${value}: '${name}' is reserved or not a field name`);
  seen.add(name);
  return { name, column: columnOf(name), type: 'datetime', optional: true, readOnly: true };
}

/** The literal an action sets a field to, checked against the field. */
function setLiteral(value: string, field: FieldSpec, text: string): string {
  if (text === 'now') {
    if (field.type !== 'datetime')
      throw new SpecError(
        `--action ${value}: ${field.name}=now, but '${field.name}' is ${field.type} (now is for datetimes)`,
      );
    return "'now'";
  }
  if (text === 'null') {
    if (!field.optional) throw new SpecError(`--action ${value}: ${field.name}=null, but '${field.name}' is required`);
    return 'null';
  }
  if (field.reference) throw new SpecError(`--action ${value}: an action cannot set the reference '${field.name}'`);
  return literal(parseDefault(field.name, field.type, text), field.type);
}

/**
 * `archive:archivedAt` or `close:status=closed,closedAt=now` (with `from`, the values of `--from`), checked
 * against the fields; `added`: the fields it names that the module lacks (optional datetimes).
 */
export function parseAction(
  value: string,
  fields: FieldSpec[],
  seen: Set<string>,
  from?: string,
): { action: ActionSpec; added: FieldSpec[] } {
  const match = ACTION.exec(value);
  if (!match)
    throw new SpecError(
      `--action ${value}: expected <action>:<datetime field> or <action>:<field>=<value>,…, e.g. --action archive:archivedAt or --action close:status=closed,closedAt=now`,
    );
  const [, name, rest] = match as unknown as [string, string, string];
  const added: FieldSpec[] = [];
  const fieldOf = (fieldName: string) =>
    fields.find((field) => field.name === fieldName) ?? added.find((field) => field.name === fieldName);
  if (!rest.includes('=')) {
    if (from !== undefined)
      throw new SpecError(
        `--from goes with an action that sets a state, e.g. --action close:status=closed,closedAt=now --from open`,
      );
    const existing = fieldOf(rest);
    if (existing && (existing.type !== 'datetime' || !existing.optional))
      throw new SpecError(
        `--action ${value}: '${rest}' is not an optional datetime (the action sets it to now; empty means not done yet)`,
      );
    if (!existing) added.push(addedDatetime(value, rest, seen));
    return { action: { name, set: [[rest, "'now'"]], unless: rest }, added };
  }
  const set: [string, string][] = [];
  for (const pair of rest.split(',')) {
    const [fieldName, text] = pair.split('=') as [string, string | undefined];
    if (text === undefined || text === '') throw new SpecError(`--action ${value}: '${pair}' is not <field>=<value>`);
    if (set.some(([named]) => named === fieldName))
      throw new SpecError(`--action ${value}: '${fieldName}' is set twice`);
    let field = fieldOf(fieldName);
    if (!field) {
      if (text !== 'now' && text !== 'null')
        throw new SpecError(
          `--action ${value}: '${fieldName}' is not one of the fields (only a datetime set to now or null is added): add it first`,
        );
      field = addedDatetime(value, fieldName, seen);
      added.push(field);
    }
    if (!field.optional && field.default === undefined && !field.readOnly)
      throw new SpecError(
        `--action ${value}: '${fieldName}' is required without a default: a field actions set is no body's, so it needs a default (e.g. ${fieldName}:${field.type}=<value>)`,
      );
    set.push([fieldName, setLiteral(value, field, text)]);
  }
  if (from === undefined) return { action: { name, set }, added };
  const states = set.map(([fieldName]) => fieldOf(fieldName)!).filter((field) => field.type !== 'datetime');
  if (states.length !== 1)
    throw new SpecError(
      `--from: the action must set exactly one field that is not a datetime (its state), e.g. status=closed; it sets ${states.length}`,
    );
  const state = states[0]!;
  const values = from.split(',').filter(Boolean);
  if (values.length === 0) throw new SpecError('--from needs values, e.g. --from open,in_progress');
  return {
    action: {
      name,
      set,
      from: {
        field: state.name,
        values: values.map((text) => literal(parseDefault(state.name, state.type, text), state.type)),
      },
    },
    added,
  };
}

/** The action's line in resource.ts: `close: { access: 'owner-or-admin', set: { status: 'closed', closedAt: 'now' }, from: { status: ['open'] } },`. */
export function actionLine(action: ActionSpec): string {
  const key = /-/.test(action.name) ? `'${action.name}'` : action.name;
  const set = action.set.map(([field, value]) => `${field}: ${value}`).join(', ');
  const from = action.from ? `, from: { ${action.from.field}: [${action.from.values.join(', ')}] }` : '';
  const unless = action.unless ? `, unless: '${action.unless}'` : '';
  return `${key}: { access: 'owner-or-admin', set: { ${set} }${from}${unless} },`;
}
