import { STATUS_CODES } from 'node:http';
import type { Middleware } from 'koa';
import { pathParameterNames, type MountedRoute } from '../routing/mount';
import type { ErrorDoc, ErrorResponses, HeaderDoc, JsonSchema, ModuleMiddleware } from '../routing/route';
import { FRAMEWORK_HEADERS, SCHEMA_REF, plain } from './components';
import { exampleOf } from './examples';

// One route → one OpenAPI operation. Every response is derived from the declaration: the success
// envelope around the declared `data`, then each error the framework gives on such a route (the guards
// it has, the body it reads, the schemas it validates), the handler's declared errors and those of its
// module's middleware. Nothing here is listed by hand for a particular route.

interface ErrorEntry {
  descriptions: string[];
  headers: Record<string, HeaderDoc>;
  /** The headers every reason for this status sends: `required` in the document. */
  always: Set<string>;
  /** Answered by the HTTP server itself, before Koa (no X-Request-Id, no module headers). */
  raw?: boolean;
}

/**
 * Node's parser refuses a request line plus headers over its limit (16 KiB unless `--max-http-header-size`
 * says otherwise) before any route runs: a long query string is enough, so any operation can get it
 * (src/http/http-server.ts writes the envelope).
 */
const HEADERS_TOO_LARGE =
  'Request line and headers larger than the server accepts (16 KiB by default): a long query string or header';

const PARAMETER_PART = { params: 'path', query: 'query', headers: 'header' } as const;

/** `/api/notes/:id` → `/api/notes/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function words(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
}

/** `GET /api/notes/:id` → `getNotesById`; `GET /` → `getRoot`. */
export function derivedOperationId(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean);
  if (segments[0] === 'api') segments.shift();
  const name = segments.map((segment) => (/^[:*]/.test(segment) ? `By${words(segment)}` : words(segment))).join('');
  return `${method.toLowerCase()}${name || 'Root'}`;
}

function declaredByMiddleware(route: MountedRoute): { errors: ErrorResponses[]; headers: Record<string, HeaderDoc> } {
  const entries = (route.module?.middleware ?? []).filter(
    (entry): entry is Exclude<ModuleMiddleware, Middleware> => typeof entry !== 'function',
  );
  return {
    errors: entries.flatMap((entry) => (entry.errors ? [entry.errors] : [])),
    headers: Object.assign({}, ...entries.map((entry) => entry.headers)),
  };
}

/** What the per-user request budget sends on an authenticated route's answers (src/http/routing/request-budget.ts). */
const BUDGET_HEADERS: Record<string, HeaderDoc> = {
  'RateLimit-Limit': FRAMEWORK_HEADERS['RateLimit-Limit'],
  'RateLimit-Remaining': FRAMEWORK_HEADERS['RateLimit-Remaining'],
  'RateLimit-Reset': FRAMEWORK_HEADERS['RateLimit-Reset'],
};

/** Every error status this route can answer, with why and which headers come with it. */
function errorEntries(route: MountedRoute, budgeted: boolean): Map<number, ErrorEntry> {
  const { definition } = route;
  const entries = new Map<number, ErrorEntry>();
  const add = (status: number, doc: string | ErrorDoc) => {
    const { description, headers = {} } = typeof doc === 'string' ? { description: doc } : doc;
    const existing = entries.get(status);
    const entry = existing ?? { descriptions: [], headers: {}, always: new Set(Object.keys(headers)) };
    if (!entry.descriptions.includes(description)) entry.descriptions.push(description);
    Object.assign(entry.headers, headers);
    if (existing) for (const name of entry.always) if (!(name in headers)) entry.always.delete(name);
    entries.set(status, entry);
  };
  if (definition.body) add(400, 'Malformed JSON, or a `__proto__` / `constructor.prototype` key');
  if (definition.access !== 'public') {
    add(401, {
      description: 'Missing, invalid or expired bearer token',
      headers: { 'WWW-Authenticate': FRAMEWORK_HEADERS['WWW-Authenticate'] },
    });
  }
  if (typeof definition.access === 'object')
    add(403, `The caller's role is not one of: ${definition.access.roles.join(', ')}`);
  if (budgeted && definition.access !== 'public') {
    add(429, {
      description:
        "The caller's request budget is spent (USER_RATE_LIMIT_MAX per USER_RATE_LIMIT_WINDOW per user), or USER_CONCURRENCY_MAX of their " +
        'requests are running and 64 more wait their turn; roles in USER_RATE_LIMIT_EXEMPT_ROLES are held to neither',
      headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'], ...BUDGET_HEADERS },
    });
  }
  if (definition.body) {
    add(413, 'Body larger than the configured limit (BODY_LIMIT)');
    add(415, 'A body that is not JSON');
  }
  // Any declared part can be refused, plain strings too: no text may hold U+0000 (text-rules.ts), a path id included.
  const validated = (['params', 'query', 'headers', 'body'] as const).filter((part) => definition[part]);
  if (validated.length) add(422, `The ${validated.join(', ')} did not match the schema: \`errors\` names each field`);
  // A route of a module that keeps data can find the database unreachable: derived from that fact.
  if (route.usesStores)
    add(503, {
      description: 'The database is unreachable: try again shortly',
      headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] },
    });
  for (const declared of [definition.errors ?? {}, ...declaredByMiddleware(route).errors]) {
    for (const [status, doc] of Object.entries(declared)) add(Number(status), doc);
  }
  entries.set(431, { descriptions: [HEADERS_TOO_LARGE], headers: {}, always: new Set(), raw: true });
  add(500, 'Unexpected error: the body says nothing more; the log has the request id');
  return entries;
}

/**
 * The headers of one response: X-Request-Id (every answer Koa gives), the module middleware's, the response's
 * own. Those in `required` are always sent: stated (`required: true`, so inline rather than a `$ref`); a
 * framework header always sent (X-Request-Id) says so in its component.
 */
function headerRefs(
  route: MountedRoute,
  headers: Record<string, HeaderDoc>,
  required: ReadonlySet<string>,
  budgeted: boolean,
): Record<string, JsonSchema> {
  const budget = budgeted && route.definition.access !== 'public' ? BUDGET_HEADERS : {}; // the token check's request budget
  const all: Record<string, HeaderDoc> = {
    'X-Request-Id': FRAMEWORK_HEADERS['X-Request-Id'],
    ...budget,
    ...declaredByMiddleware(route).headers,
    ...headers,
  };
  return Object.fromEntries(
    Object.entries(all).map(([name, header]) => {
      if (FRAMEWORK_HEADERS[name]?.required) return [name, { $ref: `#/components/headers/${name}` }]; // its component says it is always sent
      if (required.has(name)) return [name, { ...plain(header), required: true }];
      return [name, name in FRAMEWORK_HEADERS ? { $ref: `#/components/headers/${name}` } : plain(header)];
    }),
  );
}

/** A JSON body of this schema, with its example when one is given or can be derived. */
function jsonContent(schema: JsonSchema, example?: unknown): JsonSchema {
  return { 'application/json': example === undefined ? { schema } : { schema, example } };
}

const LOCATION_HEADER = {
  description: 'Where the created resource is read (its URL path)',
  schema: { type: 'string' },
};

function successResponses(route: MountedRoute, budgeted: boolean): Record<string, JsonSchema> {
  const declared = route.definition.responses ?? { [route.successStatus]: {} };
  return Object.fromEntries(
    Object.entries(declared).map(([status, data]) => {
      const location: Record<string, HeaderDoc> =
        route.definition.location && status === '201' ? { Location: LOCATION_HEADER } : {};
      const headers = headerRefs(
        route,
        { ...(route.definition.responseHeaders ?? {}), ...location },
        new Set(Object.keys(location)),
        budgeted,
      );
      const response: JsonSchema = { description: STATUS_CODES[Number(status)] ?? 'Success', headers };
      if (data !== null) {
        // `data` required: a generated client types the payload as present, with no `| undefined` to guard.
        const envelope = {
          allOf: [
            { $ref: SCHEMA_REF.success },
            { type: 'object', required: ['data'], properties: { data: plain(data) } },
          ],
        };
        const payload = exampleOf(plain(data) as JsonSchema);
        response.content = jsonContent(
          envelope,
          payload === undefined ? undefined : { status: 'success', data: payload },
        );
      }
      return [status, response];
    }),
  );
}

/** What a fail answer looks like: the message the service gives, and for a 422 the field it names. */
function failExample(route: MountedRoute, status: number): JsonSchema {
  if (status !== 422) return { status: 'fail', message: STATUS_CODES[status] ?? 'Error' };
  const names = (part: 'body' | 'query' | 'params' | 'headers') =>
    Object.keys((route.definition[part] as { properties?: object } | undefined)?.properties ?? {});
  const body = names('body')[0];
  const other = (['query', 'params', 'headers'] as const).flatMap((part) =>
    names(part).map((name) => `${part}.${name}`),
  )[0];
  const field = body ?? other ?? 'body';
  return { status: 'fail', message: 'Validation failed', errors: [{ field, message: 'is invalid' }] };
}

function responses(route: MountedRoute, budgeted: boolean): Record<string, JsonSchema> {
  const all = successResponses(route, budgeted);
  for (const [status, entry] of [...errorEntries(route, budgeted)].sort(([a], [b]) => a - b)) {
    all[status] = {
      description: entry.descriptions.join('; '),
      ...(entry.raw ? {} : { headers: headerRefs(route, entry.headers, entry.always, budgeted) }),
      content: jsonContent(
        { $ref: status === 422 ? SCHEMA_REF.validationFail : SCHEMA_REF.fail },
        failExample(route, status),
      ),
    };
  }
  return all;
}

function parameters(route: MountedRoute): JsonSchema[] {
  const { definition } = route;
  const list: JsonSchema[] = [];
  const declaredPath = (definition.params as { properties?: Record<string, JsonSchema> } | undefined)?.properties ?? {};
  for (const name of pathParameterNames(route.path)) {
    const schema = plain(declaredPath[name] ?? { type: 'string' });
    // The router matches a segment of one character or more (`/api/notes/` is the list route), so an empty
    // value never reaches this operation: stated, for generators that would otherwise build one.
    if (schema.type === 'string' && schema.minLength === undefined) schema.minLength = 1;
    list.push({ name, in: 'path', required: true, schema });
  }
  for (const part of ['query', 'headers'] as const) {
    const schema = definition[part] as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
    for (const [name, property] of Object.entries(schema?.properties ?? {})) {
      // A default is filled in before `required` is checked, so a client may leave such a parameter out.
      const required = (schema?.required?.includes(name) ?? false) && !('default' in property);
      const parameter: JsonSchema = { name, in: PARAMETER_PART[part], required, schema: plain(property) };
      if (typeof property.description === 'string') parameter.description = property.description;
      list.push(parameter);
    }
  }
  return list;
}

function security(route: MountedRoute): JsonSchema[] | undefined {
  const { access, security: schemes } = route.definition;
  if (access === 'authenticated') return [{ bearerAuth: [] }];
  // OpenAPI 3.1: for schemes other than OAuth2/OpenID, the list names the roles the operation needs.
  if (typeof access === 'object') return [{ bearerAuth: [...access.roles] }];
  return schemes?.length ? schemes.map((name) => ({ [name]: [] })) : []; // public: stated, not left to a default
}

/** For a route that declares no description: its summary and who may call it, from the access rule. */
function derivedDescription({ definition }: MountedRoute): string {
  const { access } = definition;
  // The access rule is checked when the route is mounted; a bad one fails start-up there, not here.
  const roles = typeof access === 'object' && Array.isArray(access?.roles) ? access.roles.join(', ') : '';
  const who =
    access === 'public'
      ? 'Public: no credential needed.'
      : access === 'authenticated'
        ? 'Needs a bearer access token.'
        : `Needs a bearer access token of a user whose current role is one of: ${roles}.`;
  return definition.summary ? `${definition.summary}. ${who}` : who;
}

/** The OpenAPI operation object of a mounted route. */
/** `budgeted`: the per-user request budget is on, so authenticated routes can answer 429 and send its counters. */
export function describeOperation(route: MountedRoute, operationId: string, budgeted: boolean): JsonSchema {
  const { definition } = route;
  const operation: JsonSchema = {
    operationId,
    tags: definition.tags ?? [route.module?.name ?? 'system'],
  };
  if (definition.summary) operation.summary = definition.summary;
  operation.description = definition.description ?? derivedDescription(route);
  const params = parameters(route);
  if (params.length) operation.parameters = params;
  if (definition.body)
    operation.requestBody = {
      required: true,
      content: jsonContent(plain(definition.body), exampleOf(plain(definition.body))),
    };
  operation.responses = responses(route, budgeted);
  const requirements = security(route);
  if (requirements) operation.security = requirements;
  return operation;
}
