import type { Middleware } from 'koa';
import type { Lifecycle } from '../../lifecycle/lifecycle';
import type { RequestState } from '../routing/route';

/** While draining for shutdown, answers ask the client to close the connection so keep-alives end. */
export function drain(lifecycle: Lifecycle): Middleware<RequestState> {
  return async (ctx, next) => {
    if (lifecycle.shuttingDown) ctx.set('Connection', 'close');
    await next();
  };
}
