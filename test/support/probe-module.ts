import { route, type ModuleDefinition } from '../../src/http/routing/route';
import type { ModuleFactory } from '../../src/services';

// A module mounted only by tests, at /api/probe: one route per access rule and body case, so the
// cross-cutting rules (token check, role check, validation, envelope, errors) are exercised for real.

export const thingSchema = {
  type: 'object',
  required: ['email', 'name'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    name: { type: 'string', minLength: 1, maxLength: 50 },
    address: {
      type: 'object',
      required: ['city'],
      properties: { city: { type: 'string', minLength: 1 } },
    },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
  },
  additionalProperties: false,
};

interface Thing {
  email: string;
  name: string;
}

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
  return (): ModuleDefinition => ({
    name: 'probe',
    routes: [
      route({ method: 'GET', path: '/public', access: 'public', handler: () => ({ open: true }) }),
      route({ method: 'GET', path: '/me', access: 'authenticated', handler: (ctx) => ({ user: ctx.state.user }) }),
      route({ method: 'GET', path: '/admin', access: { roles: ['admin', 'owner'] }, handler: () => ({ admin: true }) }),
      route<Thing>({
        method: 'POST',
        path: '/things',
        access: 'public',
        body: thingSchema,
        status: 201,
        handler: (ctx) => ({ created: ctx.request.body.name }),
      }),
      route<Thing>({
        method: 'POST',
        path: '/admin-things',
        access: { roles: ['admin'] },
        body: thingSchema,
        handler: (ctx) => ({ created: ctx.request.body.name }),
      }),
      route({ method: 'DELETE', path: '/things/:id', access: 'authenticated', handler: () => undefined }),
      route({
        method: 'GET',
        path: '/boom',
        access: 'public',
        handler: () => {
          throw new Error('connect ECONNREFUSED password=hunter2 SELECT * FROM users');
        },
      }),
      route({
        method: 'GET',
        path: '/slow',
        access: 'public',
        handler: async () => {
          await gate.pass();
          return { finished: true };
        },
      }),
    ],
  });
}
