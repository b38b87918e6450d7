import Router from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import type { TokenService } from '../../auth/tokens';
import { success } from '../envelope';
import { jsonBody } from '../middleware/json-body';
import { accessGuards } from './access';
import type { ModuleDefinition, RequestState, RouteContext, RouteDefinition } from './route';
import { validateBody } from './validation';

export interface MountOptions {
  tokens: TokenService;
  bodyLimitBytes: number;
}

const MODULE_NAME = /^[a-z][a-z0-9-]*$/;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Runs the handler and wraps what it returns in the success envelope; nothing returned → 204. */
function respond(definition: RouteDefinition): Middleware<RequestState> {
  const { handler, status = 200 } = definition;
  return async (ctx) => {
    const data = await handler(ctx as RouteContext);
    if (data !== undefined) {
      ctx.status = status;
      ctx.body = success(data);
    } else if (ctx.body === undefined || ctx.body === null) {
      ctx.status = 204;
    }
  };
}

/** Token check → role check → body (JSON only) → validation → the route's own `before` → handler. */
function chain(definition: RouteDefinition, options: MountOptions, where: string): Middleware<RequestState>[] {
  if (!METHODS.has(definition.method)) throw new Error(`${where}: unsupported method ${String(definition.method)}`);
  if (typeof definition.handler !== 'function') throw new Error(`${where}: handler must be a function`);
  const body = definition.body ? [jsonBody(options.bodyLimitBytes), validateBody(definition.body, where)] : [];
  return [...accessGuards(definition.access, options.tokens, where), ...body, ...(definition.before ?? []), respond(definition)];
}

/** Adds routes to a router. Every check on a declaration happens here, so a bad one fails start-up. */
export function addRoutes(router: Router<RequestState>, prefix: string, routes: RouteDefinition[], options: MountOptions): void {
  for (const definition of routes) {
    const path = `${prefix}${definition.path === '/' && prefix ? '' : definition.path}`;
    const where = `route ${String(definition.method)} ${path}`;
    if (typeof definition.path !== 'string' || !definition.path.startsWith('/')) throw new Error(`${where}: path must start with /`);
    // Composed once here: given a list, the router would compose it again on every request.
    router.register(path, [definition.method], [compose(chain(definition, options, where))]);
  }
}

/** The module's mount point, after checking its name. */
export function modulePrefix(module: ModuleDefinition): string {
  if (!MODULE_NAME.test(module.name)) throw new Error(`module name '${module.name}' must match ${MODULE_NAME}`);
  return `/api/${module.name}`;
}

/**
 * How every path is matched, by the router and by module-wide middleware alike. Case-sensitive: a path
 * differing only in case is another path (404), never a route reached around its module's middleware
 * (the auth rate limit was once bypassed by `POST /API/AUTH/LOGIN`). A trailing slash is tolerated by both.
 */
const MATCHING = { sensitive: true, strict: false } as const;

export function createRouter(): Router<RequestState> {
  return new Router<RequestState>(MATCHING);
}

/**
 * Runs `middleware` for every request at or below `prefix`, matched by a route or not. "Below the prefix"
 * is decided by a router built with the same matching rules as the one that dispatches, so the two cannot
 * disagree about which paths belong to a module.
 */
export function underPrefix(prefix: string, middleware: Middleware<RequestState>[]): Middleware<RequestState> {
  const run = compose(middleware);
  const scope = createRouter();
  scope.all(`${prefix}{/*rest}`, () => undefined); // registered only to be matched, never dispatched
  return (ctx, next) => (scope.match(ctx.path, ctx.method).route ? run(ctx, next) : next());
}
