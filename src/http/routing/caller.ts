import type { AuthUser } from '../../auth/tokens';
import { unauthorized } from '../errors';
import type { RequestState } from './route';

/** The caller of a route that is not public: the token check has set it before any handler runs. */
export function callerOf(ctx: { state: RequestState }): AuthUser {
  if (!ctx.state.user) throw unauthorized(); // only on a public route, where there is no caller
  return ctx.state.user;
}
