import Router from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import { success } from '../envelope';
import { answered, answerJson } from '../json-answer';
import { jsonBody } from '../middleware/json-body';
import { accessGuards, type Authenticators } from './access';
import type { AnyRoute, ModuleDefinition, ModuleMiddleware, RequestState, RouteContext } from './route';
import { validateBody, validateRequestParts } from './validation';

export interface MountOptions {
  auth: Authenticators;
  bodyLimitBytes: number;
}

/** A declared route where it is mounted: what the router, the guards and the API document all work from. */
export interface MountedRoute {
  /** The full path as the router matches it: `/api/notes/:id`. */
  path: string;
  /** `route GET /api/notes/:id`: how start-up errors name the route. */
  where: string;
  definition: AnyRoute;
  /** The status a handler's data is answered with. */
  successStatus: number;
  /** The module the route belongs to; undefined for the system routes. */
  module?: ModuleDefinition;
  /** The module keeps data (its factory lists stores): any of its routes may find the database unreachable (503). */
  usesStores?: boolean;
}

const MODULE_NAME = /^[a-z][a-z0-9-]*$/;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** `:id` (and path-to-regexp's `*rest`) in a route path. */
const PATH_PARAMETER = /[:*]([A-Za-z_][A-Za-z0-9_]*)/g;

/** The names of a path's parameters, in order: `/notes/:id/tags/:tag` → ['id', 'tag']. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(PATH_PARAMETER)].map((match) => match[1]);
}

function statusKeys(map: object | undefined, min: number, max: number, what: string, where: string): number[] {
  const keys = Object.keys(map ?? {}).map(Number);
  for (const key of keys) {
    if (!Number.isInteger(key) || key < min || key > max)
      throw new Error(`${where}: ${what} must be keyed by statuses ${min}–${max}, not ${key}`);
  }
  return keys.sort((a, b) => a - b);
}

function propertyNames(schema: object | undefined): string[] | undefined {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties) : undefined;
}

/** Checks what the guards and the document rely on; returns the success status. A bad declaration fails start-up. */
function checkDeclaration(definition: AnyRoute, path: string, where: string): number {
  if (!METHODS.has(definition.method)) throw new Error(`${where}: unsupported method ${String(definition.method)}`);
  if (typeof definition.handler !== 'function') throw new Error(`${where}: handler must be a function`);
  // 3xx: a redirect (the handler calls ctx.redirect), declared without a body.
  const successes = statusKeys(definition.responses, 200, 399, 'responses', where);
  for (const status of successes)
    if (status >= 300 && definition.responses?.[status] !== null)
      throw new Error(`${where}: a redirect (${status}) has no body: declare it as null`);
  statusKeys(definition.errors, 400, 599, 'errors', where);
  const withBody = successes.filter((status) => definition.responses?.[status] != null);
  const status = definition.status ?? withBody[0] ?? 200;
  if (definition.responses && definition.status !== undefined && !successes.includes(status)) {
    throw new Error(`${where}: status ${status} is not among the declared responses`);
  }
  for (const part of ['params', 'query', 'headers'] as const) {
    if (definition[part] && (definition[part] as { type?: unknown }).type !== 'object')
      throw new Error(`${where}: ${part} schema must be of type object`);
  }
  if (definition.params) {
    const declared = (propertyNames(definition.params) ?? []).sort().join(', ');
    const inPath = pathParameterNames(path).sort().join(', ');
    if (declared !== inPath)
      throw new Error(`${where}: params schema names [${declared}] but the path has [${inPath}]`);
  }
  if (definition.query && !propertyNames(definition.query))
    throw new Error(`${where}: query schema must list its parameters in properties`);
  for (const name of propertyNames(definition.headers) ?? []) {
    if (name !== name.toLowerCase())
      throw new Error(`${where}: header names in the headers schema must be lower-case (${name})`);
  }
  return status;
}

/** Runs the handler and wraps what it returns in the success envelope; nothing returned → 204. */
function respond(definition: AnyRoute, status: number): Middleware<RequestState> {
  const { handler } = definition;
  return async (ctx) => {
    const data = await handler(ctx as unknown as RouteContext);
    if (data !== undefined) {
      answerJson(
        ctx,
        definition.statusOf ? (definition.statusOf as (answered: unknown) => number)(data) : status,
        success(data),
      );
      const location = definition.location
        ? (definition.location as (created: unknown) => string | undefined)(data)
        : undefined;
      if (location !== undefined) ctx.set('Location', location);
    } else if (!answered(ctx)) {
      ctx.status = 204;
    }
  };
}

/** Token check → role check → params/query/headers → body (JSON only) → body validation → `before` → handler. */
function chain(route: MountedRoute, options: MountOptions): Middleware<RequestState>[] {
  const { definition, where } = route;
  const parts = validateRequestParts(definition, where);
  const body = definition.body ? [jsonBody(options.bodyLimitBytes), validateBody(definition.body, where)] : [];
  return [
    ...accessGuards(definition.access, options.auth, where),
    ...parts,
    ...body,
    ...((definition.before ?? []) as Middleware<RequestState>[]),
    respond(definition, route.successStatus),
  ];
}

/** The paths a route path matches, as a regular expression: each `:name` one segment, `*rest` anything. */
function pathPattern(path: string): RegExp {
  const escaped = path.replace(/\/$/, '').replace(/[.+?^$()|[\]\\]/g, '\\$&');
  const pattern = escaped
    .replace(/\{\/\*[A-Za-z_]\w*\}/g, '(?:/.*)?')
    .replace(/\*[A-Za-z_]\w*/g, '.*')
    .replace(/:[A-Za-z_]\w*/g, '[^/]+');
  return new RegExp(`^${pattern}/?$`);
}

/**
 * The router answers a request with the first route that matches it: a route whose path an earlier route of
 * the same method matches too (`GET /search` after `GET /:id`) would never run. Start-up names both.
 */
function refuseShadowedRoutes(routes: readonly MountedRoute[]): void {
  routes.forEach((later, index) => {
    const earlier = routes
      .slice(0, index)
      .find((route) => route.definition.method === later.definition.method && pathPattern(route.path).test(later.path));
    if (earlier)
      throw new Error(
        `${later.where} is never reached: ${earlier.where}, declared before it, matches its path. Declare it first, or give it another path`,
      );
  });
}

/** The mounted form of a module's (or the system's) routes under `prefix`, each declaration checked. */
export function declareRoutes(
  prefix: string,
  routes: readonly AnyRoute[],
  module?: ModuleDefinition,
  usesStores = false,
): MountedRoute[] {
  const mounted = routes.map((definition) => {
    const path = `${prefix}${definition.path === '/' && prefix ? '' : definition.path}`;
    const where = `route ${String(definition.method)} ${path}`;
    if (typeof definition.path !== 'string' || !definition.path.startsWith('/'))
      throw new Error(`${where}: path must start with /`);
    return { path, where, definition, successStatus: checkDeclaration(definition, path, where), module, usesStores };
  });
  refuseShadowedRoutes(mounted);
  return mounted;
}

/** The chains of the routes whose paths have no parameters, by `METHOD path`: see exactRoutes. */
export type ExactChains = ReadonlyMap<string, Middleware<RequestState>>;

/** Adds declared routes to a router, each with its chain composed once, here; returns the chains of exact paths. */
export function mountRoutes(
  router: Router<RequestState>,
  routes: readonly MountedRoute[],
  options: MountOptions,
): ExactChains {
  const exact = new Map<string, Middleware<RequestState>>();
  for (const route of routes) {
    // Composed once here: given a list, the router would compose it again on every request.
    const composed = compose(chain(route, options));
    router.register(route.path, [route.definition.method], [composed]);
    if (pathParameterNames(route.path).length === 0 && !route.path.includes('{'))
      exact.set(`${route.definition.method} ${route.path}`, composed);
  }
  return exact;
}

/**
 * Dispatches a request whose method and path are exactly a declared route's with no parameters (`GET /`,
 * `GET /api/users/me`, `POST /api/auth/refresh`) by one Map look-up. The router would test the path against
 * every route's pattern and compose the matched layers again per request; it still answers everything
 * else (parameters, a trailing slash, HEAD, 405). Which route answers cannot differ: declareRoutes refuses
 * a route that an earlier one of the same method would shadow, and matching is case-sensitive in both.
 * `_matchedRoute` is set as the router sets it (the metrics' route label).
 */
export function exactRoutes(chains: ExactChains): Middleware<RequestState> {
  return (ctx, next) => {
    const path = ctx.path;
    const route = chains.get(`${ctx.method} ${path}`);
    if (!route) return next();
    (ctx as { _matchedRoute?: string })._matchedRoute = path;
    ctx.params = {};
    return route(ctx, next);
  };
}

/** The module's mount point, after checking its name. */
export function modulePrefix(module: ModuleDefinition): string {
  if (!MODULE_NAME.test(module.name)) throw new Error(`module name '${module.name}' must match ${MODULE_NAME}`);
  return `/api/${module.name}`;
}

/** The middleware function of a module-wide entry (plain, or with the errors it declares). */
export function middlewareOf(entry: ModuleMiddleware): Middleware<RequestState> {
  return (typeof entry === 'function' ? entry : entry.middleware) as Middleware<RequestState>;
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
  // Matching is case-sensitive and decodes nothing, so a path that does not start with the prefix cannot
  // match: the cheap test first, the router's own answer for the rest (every request passes here).
  return (ctx, next) =>
    ctx.path.startsWith(prefix) && scope.match(ctx.path, ctx.method).route ? run(ctx, next) : next();
}
