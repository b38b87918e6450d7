import { Type } from '@sinclair/typebox';
import type { Services } from '../services';
import { HttpError } from './errors';
import { route, type AnyRoute } from './routing/route';

/** The service's own routes, outside /api: the base endpoint and the health probes. */
export function systemRoutes({
  database,
  lifecycle,
  oidc,
}: Pick<Services, 'database' | 'lifecycle' | 'oidc'>): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/',
      access: 'public',
      summary: 'Welcome message',
      responses: { 200: Type.Object({ message: Type.String() }) },
      handler: () => ({ message: 'Welcome to the API' }),
    }),
    route({
      // Liveness: the process answers. Nothing else, so a slow database never gets the process restarted.
      method: 'GET',
      path: '/health/live',
      access: 'public',
      summary: 'Liveness probe: the process answers',
      responses: { 200: Type.Object({ status: Type.Literal('ok') }) },
      handler: () => ({ status: 'ok' as const }),
    }),
    route({
      // Readiness: worth sending traffic to. Not while shutting down, and not while the store is unreachable.
      method: 'GET',
      path: '/health/ready',
      access: 'public',
      summary: 'Readiness probe: the database answers and the service is not shutting down',
      responses: {
        200: Type.Object({
          status: Type.Literal('ready'),
          database: Type.String({ description: 'The database engine' }),
          oidcPending: Type.Optional(
            Type.Array(Type.String(), {
              description:
                'OpenID Connect providers not discovered yet (their sign-in answers 503; still ready: the rest of the service works)',
            }),
          ),
        }),
      },
      errors: { 503: 'Shutting down, or the database is unreachable' },
      handler: async (ctx) => {
        ctx.set('Cache-Control', 'no-store');
        if (lifecycle.shuttingDown) throw new HttpError(503, 'Shutting down');
        try {
          await database.ping();
        } catch {
          throw new HttpError(503, 'Database unreachable');
        }
        // Again after the ping: a shutdown that began meanwhile must not be answered "ready".
        if (lifecycle.shuttingDown) throw new HttpError(503, 'Shutting down');
        const oidcPending = oidc?.pending() ?? [];
        return {
          status: 'ready' as const,
          database: database.engine,
          ...(oidcPending.length > 0 ? { oidcPending } : {}),
        };
      },
    }),
  ];
}
