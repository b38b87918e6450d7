import type { IncomingHttpHeaders } from 'node:http';
import type { ParsedUrlQuery } from 'node:querystring';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Middleware, ParameterizedContext } from 'koa';
import type { AccessClaims, AuthUser } from '../../auth/tokens';

// Routes are data: a module lists what each route is (method, path, who may call it, what it takes and
// answers) and one function that does the work. The same declaration drives the guards and validation
// (mount.ts), the handler's types (below) and the OpenAPI document (../openapi/). Nothing about a route
// is written anywhere else.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route: anyone, any caller with a valid access token, or callers holding one of these roles. */
export type Access = 'public' | 'authenticated' | { roles: readonly string[] };

/** A plain JSON Schema object (draft-07 keywords); compiled once by ajv when the route is mounted. */
export type JsonSchema = Record<string, unknown>;

/**
 * A schema as a route takes it: a TypeBox schema (`Type.Object(...)`), whose static type then types the
 * handler's context, or a plain JSON Schema object, whose values the handler sees as `unknown`.
 * See docs/decisions/004-route-contract-and-api-document.md.
 */
export type Schema = TSchema | JsonSchema;

/** The TypeScript type a schema describes: TypeBox's static type, else `Otherwise`. */
export type Infer<S, Otherwise = unknown> = S extends TSchema ? Static<S> : Otherwise;

/**
 * The successful answers of a route: status (2xx) → the schema of the envelope's `data`, or `null` for an
 * answer without a body (204). A handler's return type is checked against it.
 */
export type SuccessResponses = { [status: number]: Schema | null };

/** A response header as the OpenAPI document describes it. */
export type HeaderDoc = {
  description: string;
  schema: JsonSchema;
  /** Sent on every answer the header is declared on: `required` in the document. */
  required?: boolean;
};

/** An error answer that the framework cannot derive from the declaration: the handler's own, or a middleware's. */
export type ErrorDoc = {
  description: string;
  headers?: Record<string, HeaderDoc>;
};

/** Status (4xx/5xx) → what it means here. The body is always the fail envelope. */
export type ErrorResponses = { [status: number]: string | ErrorDoc };

export interface RequestState {
  /** Set by the request-context middleware on every request. */
  requestId: string;
  /** Set by the token check on routes that are not public. */
  user?: AuthUser;
  /** What the caller's access token says (session version, the owner's proof), beside `user`. */
  session?: AccessClaims;
}

// Koa's default context carries an `any` index signature; without it, the members below can be replaced
// cleanly instead of intersected (ParsedUrlQuery & { limit: number } would make `limit` never).
type KoaContext = Omit<ParameterizedContext<RequestState, object>, 'params' | 'query' | 'headers' | 'request'> & {
  request: Omit<ParameterizedContext<RequestState, object>['request'], 'query' | 'headers' | 'body'>;
};

/** A parsed JSON body as the body parser types it: what a plain (non-TypeBox) body schema's route sees. */
type ParsedBody = ParameterizedContext['request'] extends { body?: infer T } ? T : unknown;

/**
 * What a handler receives: Koa's context with `params`, `query`, `headers` and `request.body` typed from
 * the route's schemas. Without a schema: the router's string params, Koa's parsed query, Node's headers,
 * and no body (it is not read). With typed params or query the context is no longer a plain Koa `Context`:
 * helpers should ask for what they use (`Pick<Context, 'cookies'>`) or take a RouteContext.
 */
export type RouteContext<
  Params = Record<string, string>,
  Query = ParsedUrlQuery,
  Headers = unknown,
  Body = undefined,
> = KoaContext & {
  params: Params;
  query: Query;
  headers: IncomingHttpHeaders & Headers;
  request: KoaContext['request'] & { body: Body; query: Query; headers: IncomingHttpHeaders & Headers };
};

/** The `data` a handler may return for these responses (`undefined` where a bodiless answer is declared). */
export type ResponseData<R> = [R] extends [SuccessResponses]
  ? { [S in keyof R]: R[S] extends null ? undefined | void : Infer<R[S]> }[keyof R]
  : unknown;

/**
 * What a handler returns becomes `data` in the success envelope, with `status` (the declared success
 * status, 200 by default). A handler that returns nothing and sets no body answers 204 No Content.
 */
export type RouteHandler<Context = RouteContext, Data = unknown> = (ctx: Context) => Data | Promise<Data>;

export interface RouteDefinition<
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  H extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R extends SuccessResponses | undefined = SuccessResponses | undefined,
> {
  method: HttpMethod;
  /** Relative to the module's mount point: `/login` in the `auth` module is `/api/auth/login`. `:id` names a parameter. */
  path: string;
  access: Access;

  /** Path parameters (`:id`): an object schema naming each one. Values arrive as strings; number, integer and boolean are coerced. */
  params?: P;
  /**
   * Query parameters: an object schema. Coerced like params, declared defaults applied; a parameter the
   * schema does not name is refused (422) unless the schema sets `additionalProperties`. Without a query
   * schema the query string is not looked at.
   */
  query?: Q;
  /** Request headers the route reads: an object schema with lower-case names (others pass untouched). */
  headers?: H;
  /** JSON Schema for the request body. Routes with one accept JSON bodies only (415 otherwise). Never coerced. */
  body?: B;

  /** Success status → `data` schema (`null`: no body). The handler's return type follows it. */
  responses?: R;
  /** Status for a successful answer with a body: default, the declared 2xx with a schema, else 200. */
  status?: number;
  /** Errors the handler itself raises (e.g. `{ 404: 'No such note' }`); the framework's own are derived. */
  errors?: ErrorResponses;
  /** Headers the handler sets on its successful answers (e.g. `Set-Cookie`), for the document. */
  responseHeaders?: Record<string, HeaderDoc>;
  /**
   * For a route that creates something (201): where the created resource is read, from what the handler
   * returned. The answer carries it as `Location`, and the document declares the header.
   */
  location?: (data: ResponseData<R>) => string | undefined;
  /**
   * Which declared success status this data is answered with, for a route declaring several with a body
   * (registration: 201 with the user, or 202 when a new and a taken address must answer alike).
   */
  statusOf?: (data: ResponseData<R>) => number;

  /** For the API document: one line, a longer text (Markdown), groups (default: the module's name). */
  summary?: string;
  description?: string;
  tags?: string[];
  /** Unique name of the operation; derived from method and path when absent (`GET /api/notes/:id` → `getNotesById`). */
  operationId?: string;
  /** Security schemes of the module (ModuleDefinition.securitySchemes) that the handler checks itself, e.g. a cookie. */
  security?: string[];

  /** Runs after the guards and validation, before the handler (e.g. a CSRF check on cookie routes). */
  before?: Middleware[];
  handler: RouteHandler<
    RouteContext<
      Infer<P, Record<string, string>>,
      Infer<Q, ParsedUrlQuery>,
      Infer<H>,
      B extends undefined ? undefined : Infer<B, ParsedBody>
    >,
    ResponseData<R>
  >;
}

/**
 * Module-wide middleware. The object form also tells the API document what the middleware does to answers
 * on every route of the module: the error answers it can give itself (`errors`, e.g. a rate limit's 429) and
 * the headers it adds (`headers`, e.g. `RateLimit-Remaining` or `Cache-Control`).
 */
export type ModuleMiddleware =
  Middleware | { middleware: Middleware; errors?: ErrorResponses; headers?: Record<string, HeaderDoc> };

export interface ModuleDefinition {
  /** Mount point: routes live under `/api/<name>/`. Lower-case letters, digits and dashes. */
  name: string;
  /** One line about the module: the description of its tag in the API document. */
  description?: string;
  /** Runs for every request under the module's mount point, matched or not (e.g. a rate limit). */
  middleware?: ModuleMiddleware[];
  /** OpenAPI security schemes this module's routes name in `security` (e.g. the refresh cookie). */
  securitySchemes?: Record<string, JsonSchema>;
  routes: AnyRoute[];
}

/** A route of any shape, as a module lists them (each route keeps its own types where it is declared). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each route types its own schemas
export type AnyRoute = RouteDefinition<any, any, any, any, any>;

/**
 * Declares a route. An identity function: its generics tie the handler's context and return type to the
 * route's schemas and responses, so `ctx.params.id` is a number when the params schema says so. (NoInfer:
 * the list a route is written into must not decide its types; an undeclared part keeps its default.)
 */
export function route<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  H extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  R extends SuccessResponses | undefined = undefined,
>(definition: RouteDefinition<P, Q, H, B, R>): NoInfer<RouteDefinition<P, Q, H, B, R>> {
  return definition;
}
