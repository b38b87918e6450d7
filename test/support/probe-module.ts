import { Type } from '@sinclair/typebox';
import { notFound } from '../../src/http/errors';
import { route, type ModuleDefinition } from '../../src/http/routing/route';
import type { ModuleFactory } from '../../src/services';

// A module mounted only by tests, at /api/probe: one route per access rule and body case, so the
// cross-cutting rules (token check, role check, validation, envelope, errors) are exercised for real.

export const thingSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.String({ minLength: 1, maxLength: 50 }),
    address: Type.Optional(Type.Object({ city: Type.String({ minLength: 1 }) })),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
  },
  { additionalProperties: false },
);

/** A route with every request part declared: params and query coerced, defaults applied, extras refused. */
export const itemRoute = route({
  method: 'GET',
  path: '/items/:id',
  access: 'public',
  params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
  query: Type.Object({
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    verbose: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 3 })),
  }),
  responses: {
    200: Type.Object({
      id: Type.Integer(),
      limit: Type.Integer(),
      verbose: Type.Boolean(),
      tags: Type.Array(Type.String()),
    }),
  },
  errors: { 404: 'No such item' },
  handler: (ctx) => {
    if (ctx.params.id === 404) throw notFound('No such item');
    // Typed from the schemas: a number, a number, a boolean or undefined, a string array or undefined.
    return {
      id: ctx.params.id,
      limit: ctx.query.limit,
      verbose: ctx.query.verbose ?? false,
      tags: ctx.query.tags ?? [],
    };
  },
});

/** Lets a test hold a request in flight until it says so. */
export class Gate {
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  entered = 0;

  async pass(): Promise<void> {
    this.entered += 1;
    await this.opened;
  }

  open(): void {
    this.release();
  }
}

export function probeModule(gate: Gate = new Gate()): ModuleFactory {
  const heldAtGate = async () => {
    await gate.pass();
    return { finished: true };
  };
  return (): ModuleDefinition => ({
    name: 'probe',
    routes: [
      route({ method: 'GET', path: '/public', access: 'public', handler: () => ({ open: true }) }),
      route({ method: 'GET', path: '/me', access: 'authenticated', handler: (ctx) => ({ user: ctx.state.user }) }),
      route({ method: 'GET', path: '/admin', access: { roles: ['admin', 'owner'] }, handler: () => ({ admin: true }) }),
      route({
        method: 'POST',
        path: '/things',
        access: 'public',
        body: thingSchema,
        status: 201,
        handler: (ctx) => ({ created: ctx.request.body.name }),
      }),
      route({
        method: 'POST',
        path: '/admin-things',
        access: { roles: ['admin'] },
        body: thingSchema,
        handler: (ctx) => ({ created: ctx.request.body.name }),
      }),
      route({ method: 'DELETE', path: '/things/:id', access: 'authenticated', handler: () => undefined }),
      itemRoute,
      route({
        method: 'GET',
        path: '/search',
        access: 'public',
        // Opts in to parameters it does not name (e.g. tracking parameters it passes on).
        query: Type.Object({ q: Type.String({ minLength: 1 }) }, { additionalProperties: true }),
        handler: (ctx) => ({ q: ctx.query.q, extra: Object.keys(ctx.query).filter((name) => name !== 'q') }),
      }),
      route({
        method: 'GET',
        path: '/versioned',
        access: 'authenticated',
        headers: Type.Object({ 'x-api-version': Type.Integer({ minimum: 1, maximum: 2 }) }),
        responses: { 200: Type.Object({ version: Type.Integer() }) },
        handler: (ctx) => ({ version: ctx.headers['x-api-version'] }),
      }),
      route({
        method: 'GET',
        path: '/boom',
        access: 'public',
        handler: () => {
          throw new Error('connect ECONNREFUSED password=hunter2 SELECT * FROM users');
        },
      }),
      // Held at the gate until the test opens it: as anyone, and as a signed-in user.
      route({ method: 'GET', path: '/slow', access: 'public', handler: heldAtGate }),
      route({ method: 'GET', path: '/held', access: 'authenticated', handler: heldAtGate }),
    ],
  });
}
