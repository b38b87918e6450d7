import { resourceRoutes } from '../http/routing/resource-routes';
import { defineModule, type ModuleFactory } from '../services';
import type { Fields } from '../stores/kit/fields';
import type { Resource } from '../stores/kit/resource';
import { resourceStore } from '../stores/kit/resource-definition';
import type { AnyRoute } from '../http/routing/route';
import type { ResourceStore } from '../stores/kit/resource-store';
import type { ResourceAccess } from '../stores/kit/access-policy';
import type { WriteCheck } from '../http/routing/write-check';

/** The module's one line in the document: who reads and who writes. */
function policyWords(access: ResourceAccess): string {
  if (access.read === 'owner') return 'each signed-in user works on their own records, role admin on all of them';
  const readers = access.read === 'public' ? 'anyone reads them (no token)' : 'every signed-in user reads them';
  const writers =
    access.write === 'owner'
      ? 'each writes their own'
      : access.write === 'admin'
        ? 'admins write them'
        : `role ${access.write.slice(5)} and admins write them`;
  return `${readers}; ${writers}`;
}

/**
 * The module of a resource, mounted at /api/<name>: its store and the kit's CRUD routes, plus any routes
 * its team adds (`routes`, given the store) and its own check of every write (`checkWrite`: write-check.ts).
 */
export function resourceModule<F extends Fields>(
  resource: Resource<F>,
  options: { description?: string; routes?: (store: ResourceStore<F>) => AnyRoute[]; checkWrite?: WriteCheck<F> } = {},
): ModuleFactory {
  const store = resourceStore(resource);
  return defineModule([store], ({ database, config, users, searchTurns }) => {
    const opened = database.store(store);
    return {
      name: resource.name,
      description: options.description ?? `The ${resource.name.replace(/-/g, ' ')}: ${policyWords(resource.access)}`,
      // ?include= reads the referenced resources' stores (opened with this one: they are its dependencies) and those of mounted join modules.
      routes: [
        ...resourceRoutes(
          resource,
          opened,
          { lists: config.lists, storeOf: (target) => database.store(resourceStore(target)), users, searchTurns },
          options.checkWrite,
        ),
        ...(options.routes?.(opened) ?? []),
      ],
    };
  });
}
