import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Middleware } from 'koa';
import { modulePrefix } from '../../src/http/routing/mount';
import type { ModuleDefinition, RequestState } from '../../src/http/routing/route';
import { modules as registeredModules } from '../../src/modules';
import { defineModule, type ModuleFactory } from '../../src/services';
import { pathVariants, sendRaw as send } from '../support/path-variants';
import { buildTestApp, type TestApp } from '../support/test-app';

// A module's own middleware (the auth rate limit among them) must run for every request the router sends to
// one of that module's routes, whatever spelling of the path got it there. The audit found
// `POST /API/AUTH/LOGIN` routed to login without the rate limit (the router ignored case, the prefix check
// did not). For every registered module with middleware, and a probe module with some, each route is
// called under spellings a client controls (case, slashes, percent-encoding, dot segments) on a raw
// socket, and the invariant is checked on every request: routed to module M ⇒ M's middleware ran.

const probeWithMiddleware: ModuleFactory = () => ({
  name: 'guarded-probe',
  middleware: [async (_ctx, next) => next()],
  routes: [
    { method: 'GET', path: '/items', access: 'public', handler: () => ({ items: [] }) },
    { method: 'POST', path: '/items/:id/archive', access: 'public', handler: () => ({ archived: true }) },
  ],
});

describe('module middleware runs for every path its module routes, however spelled', () => {
  let app: TestApp;
  let server: Server;
  let port: number;
  const ranFor = new Map<object, string>(); // request → the module whose middleware ran
  const bypasses: string[] = [];
  // The wrapped factory keeps the module's stores, so the service still opens them.
  const withMarker = (factory: ModuleFactory): ModuleFactory =>
    defineModule(factory.stores ?? [], (services) => {
      const definition = factory(services);
      if (!definition.middleware?.length) return definition;
      const marker: Middleware<RequestState> = async (ctx, next) => {
        ranFor.set(ctx.req, definition.name);
        await next();
      };
      return { ...definition, middleware: [marker, ...definition.middleware] };
    });
  const factories = [...registeredModules, probeWithMiddleware];
  let guarded: ModuleDefinition[] = [];

  beforeAll(async () => {
    app = await buildTestApp({ env: { AUTH_RATE_LIMIT_MAX: '1000000' }, modules: factories.map(withMarker) });
    guarded = factories.map((factory) => factory(app.services)).filter((module) => module.middleware?.length);
    const prefixes = guarded.map((module) => [modulePrefix(module), module.name] as const);
    // Outermost: after the response, which route did the router pick, and did its module's middleware run?
    app.app.middleware.unshift(async (ctx, next) => {
      await next();
      const matched = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
      const owner = matched && prefixes.find(([prefix]) => matched === prefix || matched.startsWith(`${prefix}/`));
      if (owner && ranFor.get(ctx.req) !== owner[1])
        bypasses.push(`${ctx.method} ${ctx.url} → ${matched} (${ctx.status})`);
    });
    server = app.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await app.close();
  });

  it('the auth module is among the modules checked', () => {
    expect(guarded.map((module) => module.name)).toEqual(expect.arrayContaining(['auth', 'guarded-probe']));
  });

  it('no spelling of any guarded route reaches it without its module middleware', async () => {
    let routed = 0;
    for (const module of guarded) {
      for (const route of module.routes) {
        const canonical = `${modulePrefix(module)}${route.path === '/' ? '' : route.path}`.replace(/:(\w+)/g, 'x1');
        expect(await send(port, route.method, canonical)).not.toBe(404); // the canonical path is routed
        for (const variant of pathVariants(canonical)) {
          if ((await send(port, route.method, variant)) !== 404) routed += 1;
        }
      }
    }
    expect(bypasses).toEqual([]);
    expect(routed).toBeGreaterThan(0); // trailing slashes are routed (and guarded), so the check saw traffic
  });
});
