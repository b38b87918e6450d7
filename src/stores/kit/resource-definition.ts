import { MongoResourceStore } from '../mongo/resource-mongo-store';
import { missingListIndexes } from '../sql/migrations/list-index-steps';
import { missingSearchIndex } from '../sql/migrations/search-index';
import { tableDrift } from '../sql/migrations/table-drift';
import { SqlResourceStore } from '../sql/resource-sql-store';
import { isCatalogue, OWNER_ACCESS } from './access-policy';
import type { StoreDefinition } from './definition';
import { columnOf, type Fields } from './fields';
import type { Resource } from './resource';
import type { ResourceStore } from './resource-store';
import { searchColumnOf } from './shadows';

const definitions = new WeakMap<Resource, StoreDefinition<unknown>>();

/**
 * A catalogue's records are nobody's, so a reference of one to records that only their owners read could never
 * name any (referenceScope): refused when its store is first declared, at start-up, naming both resources.
 */
function refuseUnreachableReferences(resource: Resource): void {
  if (!isCatalogue(resource.access)) return;
  for (const [name, definition] of Object.entries(resource.fields)) {
    const target = definition.references?.resource();
    if (!target || (target.access ?? OWNER_ACCESS).read !== 'owner') continue;
    throw new Error(
      `resource '${resource.name}' is a catalogue (its records are nobody's): its reference '${name}' points at '${target.name}', whose records only their owners read, ` +
        `so it could never name one. Let everyone read ${target.name} (access read authenticated or public), or make ${resource.name} each writer's own (write owner)`,
    );
  }
}

/**
 * The store of a resource, on whichever engine is configured: one definition per resource (the same object
 * for the module that owns it and for those pointing at it), which depends on the stores of the resources it
 * references, so their tables are migrated first and opened with it.
 */
export function resourceStore<F extends Fields>(resource: Resource<F>): StoreDefinition<ResourceStore<F>> {
  const known = definitions.get(resource as unknown as Resource);
  if (known) return known as StoreDefinition<ResourceStore<F>>;
  refuseUnreachableReferences(resource as unknown as Resource);
  const definition: StoreDefinition<ResourceStore<F>> = {
    name: resource.name,
    migrations: resource.migrations,
    get dependsOn() {
      return resource.dependsOn.map((target) => resourceStore(target));
    },
    checkRelational: async (queryInterface) => {
      const drift = await tableDrift(queryInterface, resource as unknown as Resource);
      const problems =
        drift.length > 0
          ? [
              `resource '${resource.name}': table ${resource.table} differs from its declaration: ${drift.join('; ')}. Run the migrations, or write the one that makes them agree`,
            ]
          : [];
      if (drift.some((problem) => problem.endsWith('does not exist'))) return problems; // nor its indexes: one message says it
      const missing = (await missingListIndexes(queryInterface, resource as unknown as Resource)).map(
        ({ columns, serves }) => `(${columns.join(', ')}) for ${serves}`,
      );
      const shadows = resource.search.map((name) => searchColumnOf(columnOf(name)));
      for (const { column, shape } of await missingSearchIndex(queryInterface, resource.table, shadows))
        missing.push(
          shape === 'per-owner'
            ? `the per-owner trigram index (owner_id, ${column}) for ?q=`
            : `the trigram index of ${column} for ?q=`,
        );
      if (missing.length === 0) return problems;
      return [
        ...problems,
        `resource '${resource.name}': table ${resource.table} lacks the list indexes its declaration needs: ${missing.join('; ')}. ` +
          `Run the migrations, or write the one that adds them: npm run new:indexes -- ${resource.name}`,
      ];
    },
    relational: (context) => new SqlResourceStore(context, resource),
    mongodb: (context) => new MongoResourceStore(context, resource),
  };
  definitions.set(resource as unknown as Resource, definition as StoreDefinition<unknown>);
  return definition;
}
