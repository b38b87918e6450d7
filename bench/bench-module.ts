import type { ModuleFactory } from '../src/services';

/**
 * Benchmark-only module, mounted by bench/bench-server.ts and nowhere else: one role-restricted GET, so the
 * run measures the token check (JWT verify) and the role check on the way to a handler that does nothing
 * else. Routes are plain data, so this file needs no runtime import from the service.
 */
export const BENCH_ROLE = 'user';

export const benchModule: ModuleFactory = () => ({
  name: 'bench',
  routes: [
    {
      method: 'GET',
      path: '/protected',
      access: { roles: [BENCH_ROLE] },
      handler: (ctx) => ({ message: 'Welcome to the API', user: ctx.state.user?.id }),
    },
  ],
});
