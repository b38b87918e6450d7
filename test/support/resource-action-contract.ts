import { isCatalogue } from '../../src/stores/kit/access-policy';
import type request from 'supertest';
import { conflictMessage, stateConflictMessage, type ActionDeclaration } from '../../src/stores/kit/actions';
import type { AnyResource } from '../../src/stores/kit/resource';
import { asJson } from './resource-samples';

// The routes contract of a resource's actions, from the declaration alone: who may run each, what it sets
// (a 'now' field holds the write's updatedAt), the 409 of `unless` and of `from` (naming the current
// value), and one winner among racing callers. A record not yet in a state an action starts from is brought
// there by the resource's other actions first (at most three steps), as a caller would.

/** What the routes contract hands these cases. */
export interface ActionCaseContext {
  http: () => ReturnType<typeof request>;
  as: (who: string) => string;
  create: (who: string) => Promise<Record<string, unknown>>;
}

type Actions = Record<string, ActionDeclaration>;

/** The actions (as admin) that take a record from `value` of `field` to one of `wanted`, shortest first; undefined if none does. */
export function pathTo(
  actions: Actions,
  field: string,
  value: unknown,
  wanted: readonly unknown[],
): string[] | undefined {
  let frontier: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  for (let depth = 0; depth <= 3; depth += 1) {
    const reached = frontier.find((state) => wanted.includes(state.value));
    if (reached) return reached.path;
    frontier = frontier.flatMap((state) =>
      Object.entries(actions)
        .filter(
          ([, action]) =>
            field in action.set &&
            action.unless === undefined &&
            ((action.from as Record<string, unknown[]> | undefined)?.[field] ?? [state.value]).includes(state.value),
        )
        .map(([name, action]) => ({
          value: (action.set as Record<string, unknown>)[field],
          path: [...state.path, name],
        })),
    );
  }
  return undefined;
}

/** The first `from` field of an action, and the values it starts from. */
const stateOf = (action: ActionDeclaration): [string, readonly unknown[]] | undefined =>
  Object.entries(action.from ?? {})[0] as [string, readonly unknown[]] | undefined;

export function describeActionCases(
  resource: AnyResource,
  path: string,
  { http, as, create }: ActionCaseContext,
): void {
  const actions = resource.actions as Actions;
  const run = (action: string, id: unknown, who: string) =>
    http()
      .post(`${path}/${String(id)}/${action}`)
      .set('Authorization', as(who));

  /** A fresh record of alice's in a state the action starts from (undefined: its actions cannot reach one). */
  const ready = async (declaration: ActionDeclaration) => {
    const record = await create('alice');
    const state = stateOf(declaration);
    const steps = state ? pathTo(actions, state[0], record[state[0]], state[1]) : [];
    for (const step of steps ?? []) await run(step, record.id, 'root').expect(200);
    return steps === undefined ? undefined : record;
  };

  for (const [action, declaration] of Object.entries(actions)) {
    const state = stateOf(declaration);
    const refusesAgain =
      declaration.unless !== undefined ||
      (state !== undefined && !state[1].includes((declaration.set as Record<string, unknown>)[state[0]]));
    const who =
      declaration.access === 'admin'
        ? 'admins only'
        : isCatalogue(resource.access)
          ? 'the writers'
          : 'the owner or an admin';
    const title = `POST ${path}/:id/${action}: ${who}, 200 with the record, others ${declaration.access === 'admin' || isCatalogue(resource.access) ? 403 : 404}${declaration.unless ? `, 409 while ${declaration.unless} is set` : ''}${state ? `, 409 naming ${state[0]} unless it is ${state[1].join(' or ')}` : ''}`;
    it(title, async () => {
      const fresh = await create('alice');
      if (state && !state[1].includes(fresh[state[0]])) {
        expect((await run(action, fresh.id, 'root').expect(409)).body).toEqual({
          status: 'fail',
          message: stateConflictMessage(action, state[0], fresh[state[0]]),
        });
      }
      const created = await ready(declaration);
      if (!created) throw new Error(`no action of ${resource.name} reaches a state ${action} starts from`);
      // Someone who may not: another user (404: not theirs), or, on a catalogue, a user who is no writer (403).
      const outsider = isCatalogue(resource.access) ? 'eve' : 'bob';
      const refusedWith = declaration.access === 'admin' || isCatalogue(resource.access) ? 403 : 404;
      const notFound = await run(action, created.id, outsider).expect(refusedWith);
      if (refusedWith === 404)
        expect(notFound.body).toEqual(
          (await run(action, '0190a0a0-0000-7000-8000-000000000000', outsider).expect(404)).body,
        );
      const done = (await run(action, created.id, declaration.access === 'admin' ? 'root' : 'alice').expect(200)).body
        .data;
      for (const [name, value] of Object.entries(declaration.set)) {
        // One time for the write: a 'now' field holds the instant updatedAt does.
        if (value === 'now') expect(done[name]).toBe(done.updatedAt);
        else expect(done[name]).toEqual(asJson({ value }).value);
      }
      expect(
        (
          await http()
            .get(`${path}/${String(created.id)}`)
            .set('Authorization', as('alice'))
            .expect(200)
        ).body.data,
      ).toEqual(done);
      if (!refusesAgain) {
        await run(action, created.id, 'root').expect(200);
        return;
      }
      const again = (await run(action, created.id, 'root').expect(409)).body.message;
      expect(again).toBe(
        declaration.unless !== undefined && done[declaration.unless] !== null && done[declaration.unless] !== false
          ? conflictMessage(action, declaration)
          : stateConflictMessage(action, state![0], done[state![0]]),
      );
      // Several at once: the conditions are the write's own filter, so one wins and the others are refused.
      const raced = (await ready(declaration))!;
      const statuses = await Promise.all([
        run(action, raced.id, 'root'),
        run(action, raced.id, 'root'),
        run(action, raced.id, 'root'),
      ]);
      expect(statuses.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    });
  }
}
