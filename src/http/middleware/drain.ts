import type { Middleware } from 'koa';
import type { Lifecycle } from '../../lifecycle/lifecycle';
import type { RequestState } from '../routing/route';

/**
 * While draining for shutdown, every answer asks the client to close the connection, so keep-alive
 * connections end with their current request instead of holding the drain open. Checked after the
 * request ran, so requests that were already in flight when the signal came are covered too.
 */
export function drain(lifecycle: Lifecycle): Middleware<RequestState> {
  return async (ctx, next) => {
    await next();
    if (lifecycle.shuttingDown) ctx.set('Connection', 'close');
  };
}
