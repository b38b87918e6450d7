import type { RouteDefinition } from '../../src/http/routing/route';
import type { ModuleFactory } from '../../src/services';
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
    ['a redirect declared with a body', { access: 'public', responses: { 302: { type: 'object' } } }, /a redirect \(302\) has no body/],
    ['a success status out of range', { access: 'public', responses: { 404: null } }, /statuses 200–399, not 404/],
  ] as const)('%s fails start-up', async (_name, route, message) => {
    await expect(buildTestApp({ modules: [moduleWith(route as Partial<RouteDefinition>)] })).rejects.toThrow(message);
  });

  it('a bad module name or a module registered twice fails start-up', async () => {
    await expect(buildTestApp({ modules: [moduleWith({ access: 'public' }, 'Bad Name')] })).rejects.toThrow(/module name/);
    const twice = moduleWith({ access: 'public' }, 'twice');
    await expect(buildTestApp({ modules: [twice, twice] })).rejects.toThrow(/registered twice/);
  });
});
