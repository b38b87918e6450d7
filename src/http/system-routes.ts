import type { Services } from '../services';
import { HttpError } from './errors';
import { route, type RouteDefinition } from './routing/route';

/** The service's own routes, outside /api: the base endpoint and the health probes. */
export function systemRoutes({ database, lifecycle }: Pick<Services, 'database' | 'lifecycle'>): RouteDefinition[] {
  return [
    route({
      method: 'GET',
      path: '/',
      access: 'public',
      handler: () => ({ message: 'Welcome to the API' }),
    }),
    route({
      // Liveness: the process answers. Nothing else, so a slow database never gets the process restarted.
      method: 'GET',
      path: '/health/live',
      access: 'public',
      handler: () => ({ status: 'ok' }),
    }),
    route({
      // Readiness: worth sending traffic to. Not while shutting down, and not while the store is unreachable.
      method: 'GET',
      path: '/health/ready',
      access: 'public',
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        if (lifecycle.shuttingDown) throw new HttpError(503, 'Shutting down');
        try {
          await database.ping();
        } catch {
          throw new HttpError(503, 'Database unreachable');
        }
        return { status: 'ready', database: database.engine };
      },
    }),
  ];
}
