import type { RouteDefinition } from '../../src/http/routing/route';
import type { ModuleFactory } from '../../src/services';
import { resourceModule, route } from '../../src/modules/kit';
import { notes } from '../support/resource-fixtures';
import { buildTestApp } from '../support/test-app';

function moduleWith(route: Partial<RouteDefinition>, name = 'broken'): ModuleFactory {
  return () => ({ name, routes: [{ method: 'GET', path: '/x', handler: () => ({}), ...route } as RouteDefinition] });
}

describe('route declarations are checked at start-up', () => {
  it('a route without an access rule fails start-up, naming the route', async () => {
    const route = { method: 'GET', path: '/x', handler: () => ({}) } as unknown as RouteDefinition;
    await expect(buildTestApp({ modules: [() => ({ name: 'broken', routes: [route] })] })).rejects.toThrow(
      /GET \/api\/broken\/x: access must be/,
    );
  });

  it.each([
    ['an unknown access rule', { access: 'everyone' as never }, /access must be/],
    ['an empty role list', { access: { roles: [] } }, /access must be/],
    ['a path without a leading slash', { access: 'public', path: 'x' }, /path must start with/],
    ['an invalid body schema', { access: 'public', method: 'POST', body: { type: 'nonsense' } }, /invalid body schema/],
    ['an unsupported method', { access: 'public', method: 'TRACE' as never }, /unsupported method/],
    [
      'a redirect declared with a body',
      { access: 'public', responses: { 302: { type: 'object' } } },
      /a redirect \(302\) has no body/,
    ],
    ['a success status out of range', { access: 'public', responses: { 404: null } }, /statuses 200–399, not 404/],
  ] as const)('%s fails start-up', async (_name, route, message) => {
    await expect(buildTestApp({ modules: [moduleWith(route as Partial<RouteDefinition>)] })).rejects.toThrow(message);
  });

  it('a bad module name or a module registered twice fails start-up', async () => {
    await expect(buildTestApp({ modules: [moduleWith({ access: 'public' }, 'Bad Name')] })).rejects.toThrow(
      /module name/,
    );
    const twice = moduleWith({ access: 'public' }, 'twice');
    await expect(buildTestApp({ modules: [twice, twice] })).rejects.toThrow(/registered twice/);
  });

  it('a route that an earlier route of its module shadows fails start-up, naming both', async () => {
    const handler = () => ({});
    const shadowed: ModuleFactory = () => ({
      name: 'shadows',
      routes: [
        { method: 'GET', path: '/:id', access: 'public', handler },
        { method: 'POST', path: '/search', access: 'public', handler }, // another method: reached
        { method: 'GET', path: '/:id/tags', access: 'public', handler }, // a longer path: reached
        { method: 'GET', path: '/search', access: 'public', handler },
      ] as RouteDefinition[],
    });
    await expect(buildTestApp({ modules: [shadowed] })).rejects.toThrow(
      'route GET /api/shadows/search is never reached: route GET /api/shadows/:id, declared before it, matches its path',
    );
    const ordered: ModuleFactory = () => ({
      name: 'ordered',
      routes: [
        { method: 'GET', path: '/search', access: 'public', handler },
        { method: 'GET', path: '/:id', access: 'public', handler },
      ] as RouteDefinition[],
    });
    const t = await buildTestApp({ modules: [ordered] });
    await t.close();
  });

  it("a hand route that a resource module's GET /:id shadows is refused, naming both", async () => {
    const search = route({ method: 'GET', path: '/search', access: 'authenticated', handler: () => ({}) });
    await expect(buildTestApp({ modules: [resourceModule(notes, { routes: () => [search] })] })).rejects.toThrow(
      'route GET /api/kit-notes/search is never reached: route GET /api/kit-notes/:id, declared before it',
    );
  });
});
