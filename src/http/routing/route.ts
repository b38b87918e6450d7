import type { Middleware, ParameterizedContext } from 'koa';
import type { AuthUser } from '../../auth/tokens';

// Routes are data: a module lists what each route is (method, path, who may call it, what body it takes)
// and one function that does the work. Guards, validation and the envelope are applied by mount.ts.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route: anyone, any caller with a valid access token, or callers holding one of these roles. */
export type Access = 'public' | 'authenticated' | { roles: readonly string[] };

/** A JSON Schema (draft-07) object; compiled once by ajv when the route is mounted. */
export type JsonSchema = Record<string, unknown>;

export interface RequestState {
  /** Set by the request-context middleware on every request. */
  requestId: string;
  /** Set by the token check on routes that are not public. */
  user?: AuthUser;
}

export type RouteContext<Body = unknown> = ParameterizedContext<RequestState> & {
  request: { body: Body };
  params: Record<string, string>;
};

/**
 * What a handler returns becomes `data` in the success envelope, with `status` (200 unless the route says
 * otherwise). A handler that returns nothing and sets no body answers 204 No Content.
 */
export type RouteHandler<Body = unknown> = (ctx: RouteContext<Body>) => unknown;

export interface RouteDefinition<Body = unknown> {
  method: HttpMethod;
  /** Relative to the module's mount point: `/login` in the `auth` module is `/api/auth/login`. */
  path: string;
  access: Access;
  /** JSON Schema for the request body. Routes with one accept JSON bodies only (415 otherwise). */
  body?: JsonSchema;
  /** Status for a successful answer with a body (default 200). */
  status?: number;
  /** Runs after the guards and validation, before the handler (e.g. a CSRF check on cookie routes). */
  before?: Middleware[];
  handler: RouteHandler<Body>;
}

export interface ModuleDefinition {
  /** Mount point: routes live under `/api/<name>/`. Lower-case letters, digits and dashes. */
  name: string;
  /** Runs for every request under the module's mount point, matched or not (e.g. a rate limit). */
  middleware?: Middleware[];
  routes: RouteDefinition<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- each route types its own body
}

/** Identity helper that keeps a route's body type tied to its handler. */
export function route<Body = unknown>(definition: RouteDefinition<Body>): RouteDefinition<Body> {
  return definition;
}
