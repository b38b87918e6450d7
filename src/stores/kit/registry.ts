import type { SqlMigration } from '../sql/migrations/migration';
import type { StoreDefinition } from './definition';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds stores of every type
export type AnyStoreDefinition = StoreDefinition<any>;

/**
 * These stores and every store they depend on, each after the stores it depends on and otherwise in
 * registration order. A dependency cycle is a start-up error.
 */
export function inDependencyOrder(definitions: readonly AnyStoreDefinition[]): AnyStoreDefinition[] {
  const ordered: AnyStoreDefinition[] = [];
  const visiting = new Set<AnyStoreDefinition>();
  const visit = (definition: AnyStoreDefinition, path: string[]): void => {
    if (ordered.includes(definition)) return;
    if (visiting.has(definition))
      throw new Error(`stores depend on each other in a cycle: ${[...path, definition.name].join(' → ')}`);
    visiting.add(definition);
    for (const dependency of definition.dependsOn ?? []) visit(dependency, [...path, definition.name]);
    visiting.delete(definition);
    ordered.push(definition);
  };
  for (const definition of definitions) visit(definition, []);
  return ordered;
}

/**
 * Every migration of these stores, store by store in dependency order (see inDependencyOrder), each store's
 * oldest first. A name used twice is a start-up error: the migrations table tells them apart by name only.
 */
export function migrationsOf(definitions: readonly AnyStoreDefinition[]): SqlMigration[] {
  const seen = new Map<string, string>();
  const migrations: SqlMigration[] = [];
  for (const definition of inDependencyOrder(definitions)) {
    for (const migration of definition.migrations) {
      const owner = seen.get(migration.name);
      if (owner)
        throw new Error(
          `migration '${migration.name}' of store '${definition.name}' has the same name as one of store '${owner}'`,
        );
      seen.set(migration.name, definition.name);
      migrations.push(migration);
    }
  }
  return migrations;
}

/** The stores opened on one database, each built once, looked up by its definition. */
export class OpenedStores {
  private readonly stores = new Map<AnyStoreDefinition, unknown>();

  constructor(definitions: readonly AnyStoreDefinition[], open: (definition: AnyStoreDefinition) => unknown) {
    const names = new Set<string>();
    for (const definition of inDependencyOrder(definitions)) {
      if (this.stores.has(definition)) continue; // two modules may share a store: one instance
      if (names.has(definition.name)) throw new Error(`two different stores are named '${definition.name}'`);
      names.add(definition.name);
      this.stores.set(definition, open(definition));
    }
  }

  get<Store>(definition: StoreDefinition<Store>): Store {
    if (!this.stores.has(definition)) {
      throw new Error(`store '${definition.name}' is not registered: list it in the stores of the module that owns it`);
    }
    return this.stores.get(definition) as Store;
  }
}
