import type { StoreDefinition } from './kit/definition';
import type { AnyStoreDefinition } from './kit/registry';
import type { Database } from './types';

/**
 * Runs one store call on behalf of an observer (metrics time it and count its errors, tracing wraps it in
 * a span). It must call `call` exactly once and settle as it does.
 */
export type StoreCallObserver = <T>(operation: string, call: () => Promise<T>) => Promise<T>;

/** The methods a store offers: those of its class and the classes it extends (the constructor aside). */
function methodNames(store: object): string[] {
  const names = new Set<string>();
  for (
    let proto = Object.getPrototypeOf(store) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (store as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  return [...names];
}

/**
 * Every operation name an observer can see on this database: `<store>.<method>` for each method of each
 * registered store, and `ping`. A closed set derived from the stores themselves, so it can be a metric label.
 */
export function storeOperations(database: Database, definitions: readonly AnyStoreDefinition[]): string[] {
  const operations = definitions.flatMap((definition) =>
    methodNames(database.store(definition) as object).map((method) => `${definition.name}.${method}`),
  );
  return [...operations, 'ping'];
}

function observed<S extends object>(store: S, name: string, observe: StoreCallObserver): S {
  const wrapper = Object.create(store) as S; // properties that are not methods still reach the store
  for (const method of methodNames(store)) {
    const original = (store as Record<string, (...args: unknown[]) => Promise<unknown>>)[method];
    const operation = `${name}.${method}`;
    // The store's own calls between its methods go to the store itself: only what the app calls is observed.
    // Writable, like a method of the store itself (tests replace one to simulate a failure).
    Object.defineProperty(wrapper, method, {
      value: (...args: unknown[]) => observe(operation, () => original.apply(store, args)),
      writable: true,
      configurable: true,
    });
  }
  return wrapper;
}

/**
 * Names the store call on the errors it throws (`storeOperation`, e.g. `users.findByEmail`), so the log line of
 * a failure says which store and operation failed (src/log-errors.ts) — the driver's own message, which may
 * hold the statement's values, is never logged.
 */
export const nameFailedOperations: StoreCallObserver = (operation, call) =>
  call().catch((error: unknown) => {
    if (error !== null && typeof error === 'object' && !('storeOperation' in error)) {
      Object.defineProperty(error, 'storeOperation', { value: operation, enumerable: false, configurable: true });
    }
    throw error;
  });

/**
 * The same database with every store call the app makes (and the readiness ping) passed through
 * `observe`: the one place where store calls are named on their errors, measured and traced, whatever the
 * engine and whichever module owns the store. `inner` is the database itself.
 */
export function observeDatabase(database: Database, observe: StoreCallObserver): Database & { inner: Database } {
  const wrapped = new Map<StoreDefinition<unknown>, unknown>();
  return {
    inner: database,
    engine: database.engine,
    description: database.description,
    store<Store>(definition: StoreDefinition<Store>): Store {
      if (!wrapped.has(definition))
        wrapped.set(definition, observed(database.store(definition) as object, definition.name, observe));
      return wrapped.get(definition) as Store;
    },
    connect: () => database.connect(),
    migrate: (options) => database.migrate(options),
    checkSchema: () => database.checkSchema(),
    ping: () => observe('ping', () => database.ping()),
    close: () => database.close(),
    poolStats: () => database.poolStats?.(),
  };
}
