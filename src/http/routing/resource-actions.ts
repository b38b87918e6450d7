import { actionChanges, conflictMessage, isSet, type ActionDeclaration } from '../../stores/kit/actions';
import type { Fields } from '../../stores/kit/fields';
import type { Condition } from '../../stores/kit/list-query';
import { ADMIN_ROLE, ownerScope } from '../../stores/kit/owner-scope';
import type { Resource } from '../../stores/kit/resource';
import type { ResourceStore } from '../../stores/kit/resource-store';
import { conflict, notFound } from '../errors';
import { callerOf } from './caller';
import { idParams } from './record-schemas';
import { route, type AnyRoute, type ErrorResponses, type JsonSchema } from './route';

// The declared actions of a resource (src/stores/kit/actions.ts) as routes: `POST /api/<name>/:id/<action>`,
// no body, the record in the caller's scope (someone else's: the same 404 as every other route), 409 while
// the action's `unless` field is set, 200 with the changed record.

/** The condition an action's record must meet: its `unless` field empty (null, or false for a boolean). */
function guardOf(resource: Resource, action: ActionDeclaration): Condition[] {
  if (action.unless === undefined) return [];
  // A boolean (required: actions.ts refuses an optional one) is unset when false; any other field when null.
  if (resource.fields[action.unless]!.kind === 'boolean') return [{ field: action.unless, comparison: 'eq', value: false }];
  return [{ field: action.unless, comparison: 'null', value: true }];
}

/** One route per declared action. */
export function actionRoutes<F extends Fields>(resource: Resource<F>, store: ResourceStore<F>, record: JsonSchema, notFoundMessage: string): AnyRoute[] {
  const plain = resource as unknown as Resource;
  return Object.entries(plain.actions).map(([name, action]) => {
    const guard = guardOf(plain, action);
    const conflicts: ErrorResponses = action.unless === undefined ? {} : { 409: conflictMessage(name, action) };
    return route({
      method: 'POST',
      path: `/:id/${name}`,
      access: action.access === 'admin' ? { roles: [ADMIN_ROLE] } : 'authenticated',
      summary: action.summary ?? `${name[0]!.toUpperCase()}${name.slice(1)} a record: sets ${Object.keys(action.set).join(', ')}`,
      description: action.unless === undefined ? undefined : `Refused (409) while ${action.unless} is set.`,
      params: idParams,
      responses: { 200: record },
      errors: { 404: notFoundMessage, ...conflicts },
      handler: async (ctx) => {
        const scope = ownerScope(callerOf(ctx));
        const changed = await store.update(ctx.params.id, scope, actionChanges(action) as never, guard);
        if (changed) return changed;
        const current = await store.findById(ctx.params.id, scope);
        if (!current) throw notFound(notFoundMessage);
        if (action.unless !== undefined && isSet((current as Record<string, unknown>)[action.unless])) throw conflict(conflictMessage(name, action));
        throw notFound(notFoundMessage); // gone between the two reads
      },
    });
  });
}
