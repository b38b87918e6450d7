import { resourceRoutes } from '../http/routing/resource-routes';
import { defineModule, type ModuleFactory } from '../services';
import type { Fields } from '../stores/kit/fields';
import type { Resource } from '../stores/kit/resource';
import { resourceStore } from '../stores/kit/resource-definition';
import type { AnyRoute } from '../http/routing/route';
import type { ResourceStore } from '../stores/kit/resource-store';

/**
 * The module of a resource, mounted at /api/<name>: its store and the kit's CRUD routes, plus any routes
 * its team adds (`routes`, given the store).
 */
export function resourceModule<F extends Fields>(resource: Resource<F>, options: { description?: string; routes?: (store: ResourceStore<F>) => AnyRoute[] } = {}): ModuleFactory {
  const store = resourceStore(resource);
  return defineModule([store], ({ database, config, users }) => {
    const opened = database.store(store);
    return {
      name: resource.name,
      description: options.description ?? `The ${resource.name.replace(/-/g, ' ')}: each signed-in user works on their own records, role admin on all of them`,
      // ?include= reads the referenced resources' stores (opened with this one: they are its dependencies) and those of mounted join modules.
      routes: [...resourceRoutes(resource, opened, { lists: config.lists, storeOf: (target) => database.store(resourceStore(target)), users }), ...(options.routes?.(opened) ?? [])],
    };
  });
}
