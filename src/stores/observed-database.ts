import type { Database, RefreshTokenStore, UserStore } from './types';

/**
 * Runs one store call on behalf of an observer (metrics time it and count its errors, tracing wraps it in
 * a span). It must call `call` exactly once and settle as it does.
 */
export type StoreCallObserver = <T>(operation: string, call: () => Promise<T>) => Promise<T>;

const REFRESH_TOKEN_METHODS = ['findByToken', 'create', 'deleteByToken'] as const satisfies readonly (keyof RefreshTokenStore)[];
const USER_METHODS = ['findByEmail', 'findById', 'create', 'updatePasswordHash'] as const satisfies readonly (keyof UserStore)[];

/** Every operation name an observer can see: a closed set, so it can be a metric label. */
export const STORE_OPERATIONS: readonly string[] = [
  ...REFRESH_TOKEN_METHODS.map((method) => `refreshTokens.${method}`),
  ...USER_METHODS.map((method) => `users.${method}`),
  'ping',
];

function observed<S extends object>(store: S, name: string, methods: readonly (keyof S & string)[], observe: StoreCallObserver): S {
  const wrapper = Object.create(store) as S; // anything not listed (an engine's extras) still reaches the store
  for (const method of methods) {
    const original = store[method] as (...args: unknown[]) => Promise<unknown>;
    const operation = `${name}.${method}`;
    Object.defineProperty(wrapper, method, { value: (...args: unknown[]) => observe(operation, () => original.apply(store, args)) });
  }
  return wrapper;
}

/**
 * The same database with every store call the app makes (and the readiness ping) passed through
 * `observe`: the one place where store calls are measured and traced, whatever the engine. Used only when
 * metrics or tracing are on; otherwise the app gets the database itself.
 */
export function observeDatabase(database: Database, observe: StoreCallObserver): Database {
  return {
    engine: database.engine,
    description: database.description,
    refreshTokens: observed(database.refreshTokens, 'refreshTokens', REFRESH_TOKEN_METHODS, observe),
    users: observed(database.users, 'users', USER_METHODS, observe),
    connect: () => database.connect(),
    migrate: () => database.migrate(),
    ping: () => observe('ping', () => database.ping()),
    close: () => database.close(),
    poolStats: () => database.poolStats?.(),
  };
}
