import {
  actionChanges,
  stampedFields,
  conflictMessage,
  isSet,
  refusingState,
  stateConflictDescription,
  stateConflictMessage,
  type ActionDeclaration,
  type StateValue,
} from '../../stores/kit/actions';
import type { Fields } from '../../stores/kit/fields';
import type { Condition } from '../../stores/kit/list-query';
import { writeScope } from '../../stores/kit/access-policy';
import { ADMIN_ROLE } from '../../stores/kit/owner-scope';
import type { Resource } from '../../stores/kit/resource';
import type { ResourceStore } from '../../stores/kit/resource-store';
import { conflict, notFound } from '../errors';
import { callerOf } from './caller';
import { idParams } from './record-schemas';
import { routeAccess } from './access';
import { route, type AnyRoute, type ErrorResponses, type JsonSchema, type RequestState } from './route';
import type { WriteJudge } from '../../stores/kit/write-rules';

// The declared actions of a resource (src/stores/kit/actions.ts) as routes: `POST /api/<name>/:id/<action>`,
// no body, the record in the caller's scope (someone else's: the same 404 as every other route), 409 while
// the action's `unless` field is set or its `from` fields hold another value, 200 with the changed record.
// The conditions are the write's own filter (UPDATE … WHERE status IN (…), findOneAndUpdate's filter): of
// several callers racing, one writes and the others find nothing to change, then read why (409).

/** The conditions an action's record must meet: its `unless` field empty (null, or false for a boolean), each `from` field one of its values. */
function guardOf(resource: Resource, action: ActionDeclaration): Condition[] {
  const from = Object.entries(action.from ?? {}).map(([field, values]): Condition => ({
    field,
    comparison: 'in',
    value: [...(values as StateValue[])],
  }));
  if (action.unless === undefined) return from;
  // A boolean (required: actions.ts refuses an optional one) is unset when false; any other field when null.
  if (resource.fields[action.unless]!.kind === 'boolean')
    return [{ field: action.unless, comparison: 'eq', value: false }, ...from];
  return [{ field: action.unless, comparison: 'null', value: true }, ...from];
}

/** The 409s an action may answer, for the document. */
function conflictsOf(name: string, action: ActionDeclaration): ErrorResponses {
  const reasons = [
    ...(action.unless === undefined ? [] : [`\`${conflictMessage(name, action)}\` while ${action.unless} is set`]),
    ...(action.from === undefined ? [] : [stateConflictDescription(name, action)]),
  ];
  return reasons.length === 0 ? {} : { 409: { description: reasons.join('; ') } };
}

/** Why a record that the guarded write did not change refuses the action (it exists in the caller's scope). */
function refusal(name: string, action: ActionDeclaration, current: Record<string, unknown>): string | undefined {
  if (action.unless !== undefined && isSet(current[action.unless])) return conflictMessage(name, action);
  const state = refusingState(action, current);
  return state === undefined ? undefined : stateConflictMessage(name, state, current[state]);
}

/** What the action routes share with the others: the not-found message, and the judge of a write (the module's check). */
interface ActionRouteParts {
  notFound: string;
  judge: (ctx: { state: RequestState }, write: string) => WriteJudge | undefined;
}

/** One route per declared action. */
export function actionRoutes<F extends Fields>(
  resource: Resource<F>,
  store: ResourceStore<F>,
  record: JsonSchema,
  { notFound: notFoundMessage, judge }: ActionRouteParts,
): AnyRoute[] {
  const plain = resource as unknown as Resource;
  // An action is a write: who may write the resource may run it (the owner, or a catalogue's writers), unless admins only.
  const writers = routeAccess(plain.access).write;
  return Object.entries(plain.actions).map(([name, action]) => {
    const guard = guardOf(plain, action);
    const [changes, stamped] = [actionChanges(action), stampedFields(action)];
    const conflicts = conflictsOf(name, action);
    return route({
      method: 'POST',
      path: `/:id/${name}`,
      access: action.access === 'admin' ? { roles: [ADMIN_ROLE] } : writers,
      summary:
        action.summary ??
        `${name[0]!.toUpperCase()}${name.slice(1)} a record: sets ${Object.keys(action.set).join(', ')}`,
      description: typeof conflicts[409] === 'object' ? `Refused (409): ${conflicts[409].description}.` : undefined,
      params: idParams,
      responses: { 200: record },
      errors: { 404: notFoundMessage, ...conflicts },
      handler: async (ctx) => {
        const scope = writeScope(plain.access, callerOf(ctx));
        const changed = await store.update(ctx.params.id, scope, changes as never, {
          guard,
          stamped,
          judge: judge(ctx, name),
        });
        if (changed) return changed;
        const current = await store.findById(ctx.params.id, scope);
        if (!current) throw notFound(notFoundMessage);
        // Meeting the conditions again here means another write changed it back in between: a conflict all the same.
        throw conflict(
          refusal(name, action, current as Record<string, unknown>) ?? `Cannot ${name}: the record changed meanwhile`,
        );
      },
    });
  });
}
