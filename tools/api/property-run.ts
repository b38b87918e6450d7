// A property run driven by the document the service serves, with tools nobody here wrote: fast-check draws the
// cases, json-schema-faker makes each value from the operation's own schemas (parameters, body), and ajv judges
// every answer against the same document. For every operation, valid requests and requests broken on purpose
// (a required property dropped, a value of the wrong type, a NUL, no credentials, a body that is not JSON, an
// unknown or mistyped query parameter, a NUL in a path id). A finding is:
//   - a status the operation does not declare, a body its schema refuses, a required header missing;
//   - a 5xx on any request;
//   - a broken request accepted (2xx);
//   - a valid request refused with a 422 for a field that no declared reason beyond the schema names (the
//     document is looser than the service).
// CI (scripts/ci/api-document.sh) runs it against the service on loopback, bounded in runs and seconds:
//   ADMIN_EMAIL=… ADMIN_PASSWORD=… PROPERTY_RUNS=20 PROPERTY_SECONDS=300 node tools/api/property-run.ts http://127.0.0.1:<port>
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { generateSync } from 'json-schema-faker';

type Json = Record<string, unknown>;
interface Schema extends Json {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  security: Record<string, string[]>[];
  responses: Record<string, { description?: string; content?: Json; headers?: Record<string, Json> }>;
}
interface Case {
  seed: number;
  broken: boolean;
  mutation: number;
}
interface Request {
  url: string;
  init: RequestInit & { headers: Record<string, string> };
  broken?: string; // what was broken on purpose
}

const baseUrl = process.argv[2] ?? 'http://127.0.0.1:3000';
const RUNS = Number(process.env.PROPERTY_RUNS ?? 20);
const deadline = Date.now() + Number(process.env.PROPERTY_SECONDS ?? 300) * 1000;
const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Json & { paths: Record<string, Record<string, Json>>; components: Json };
const ajv = addFormats.default(new Ajv2020.default({ strict: false, allErrors: true }));
ajv.addSchema(document, 'api');
const findings: string[] = [];
const statuses = new Map<string, number>();
let requests = 0;
let unsendable = 0;

const resolve = <T>(value: T): T => {
  const ref = (value as { $ref?: string }).$ref;
  if (typeof ref !== 'string') return value;
  return ref.slice(2).split('/').reduce<unknown>((node, key) => (node as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) as T;
};
const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, raw]) => {
    const op = raw as Json & { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; security?: Record<string, string[]>[]; responses: Operation['responses'] };
    return {
      method,
      path,
      parameters: (op.parameters ?? []).map(resolve),
      body: op.requestBody?.content['application/json']?.schema,
      security: op.security ?? [],
      responses: op.responses,
    };
  }),
);

// The admin's session: bearer token and refresh cookie, renewed after anything that may have ended it. Its
// password is the one the run last set: a fresh sign-in is a recent proof of the owner, so a drawn
// `POST /api/auth/password {newPassword}` changes it (docs/authentication.md, "Proving the owner again").
let current: { bearer: string; cookie: string } | undefined;
let adminPassword = process.env.ADMIN_PASSWORD;
async function session(): Promise<{ bearer: string; cookie: string }> {
  if (current) return current;
  const answer = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: process.env.ADMIN_EMAIL, password: adminPassword }),
  });
  const body = (await answer.json()) as { data?: { accessToken?: string } };
  if (answer.status !== 200 || !body.data?.accessToken) throw new Error(`property run: the admin could not log in (${answer.status})`);
  current = { bearer: `Bearer ${body.data.accessToken}`, cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0] };
  return current;
}

/**
 * A value the schema accepts. json-schema-faker 0.6.3 throws on an object with `minProperties` and
 * `additionalProperties: false` when it drew no optional property (a PATCH body): then every property is drawn.
 */
function sample(schema: Schema, seed: number): unknown {
  try {
    return generateSync(schema, { seed, optionalsProbability: 0.5 });
  } catch {
    return generateSync(schema, { seed, alwaysFakeOptionals: true });
  }
}

/**
 * Whether a 422 to a valid request is one the operation declares beyond its schema: each refused field is named
 * (in backquotes) by one of the 422's other reasons (a password's strength, a code or token that is wrong, a
 * cursor the list did not issue). Anything else means the schema let through what the service refuses.
 */
function declaredRefusal(description: string | undefined, body: string): boolean {
  const named = new Set([...(description ?? '').split('; ').slice(1).join(' ').matchAll(/`([^`]+)`/g)].map((match) => match[1]));
  try {
    const fields = ((JSON.parse(body) as { errors?: { field: string }[] }).errors ?? []).map((error) => error.field);
    return fields.length > 0 && fields.every((field) => named.has(field));
  } catch {
    return false;
  }
}

/** JSON types a schema allows (empty: it says nothing, so nothing is surely wrong for it). */
function allowedTypes(schema: Schema): Set<string> {
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) return new Set(choices.flatMap((choice) => [...allowedTypes(resolve(choice))]));
  if (schema.const !== undefined) return new Set([jsonType(schema.const)]);
  if (schema.enum) return new Set(schema.enum.map(jsonType));
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return new Set(types.flatMap((type) => (type === 'integer' ? ['integer', 'number'] : type === 'number' ? ['number', 'integer'] : [type])));
}
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}
const WRONG_VALUES: unknown[] = [12345, 'not-this-type', true, { unexpected: true }, ['unexpected'], null];
const wrongValue = (schema: Schema) => {
  const allowed = allowedTypes(schema);
  return allowed.size === 0 ? undefined : WRONG_VALUES.find((value) => !allowed.has(jsonType(value)) && !(jsonType(value) === 'number' && allowed.has('integer')));
};

/** One request for the operation: valid, or with one thing broken on purpose (chosen by `mutation`). */
async function build(op: Operation, { seed, broken, mutation }: Case): Promise<Request> {
  const headers: Record<string, string> = {};
  const query = new URLSearchParams();
  let path = op.path;
  op.parameters.forEach((parameter, index) => {
    const include = parameter.required || parameter.in === 'path' || (seed + index) % 2 === 0;
    const value = include ? sample(parameter.schema, seed + index) : undefined;
    if (value === undefined || value === null) return;
    const text = (one: unknown) => (typeof one === 'string' ? one : JSON.stringify(one));
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(text(value)));
    else if (parameter.in === 'query') for (const one of Array.isArray(value) ? value : [value]) query.append(parameter.name, text(one));
    else headers[parameter.name] = text(value);
  });
  let body = op.body ? (sample(op.body, seed + 1000) as Json) : undefined;
  const secured = op.security.some((requirement) => Object.keys(requirement).length > 0);
  if (op.security.some((requirement) => 'bearerAuth' in requirement)) headers.Authorization = (await session()).bearer;
  if (op.security.some((requirement) => 'cookieAuth' in requirement)) headers.Cookie = (await session()).cookie;

  let what: string | undefined;
  if (broken) {
    const bodySchema = op.body ? resolve(op.body) : undefined;
    const properties = Object.entries(bodySchema?.properties ?? {});
    const typed = properties.filter(([, schema]) => wrongValue(resolve(schema)) !== undefined);
    const strings = properties.filter(([, schema]) => allowedTypes(resolve(schema)).has('string'));
    const queryParameters = op.parameters.filter((parameter) => parameter.in === 'query');
    const numericQuery = queryParameters.filter((parameter) => ['integer', 'number', 'boolean'].some((type) => allowedTypes(parameter.schema).has(type)) && !allowedTypes(parameter.schema).has('string'));
    const pick = <T>(list: T[]) => list[(mutation >> 3) % list.length];
    const mutations: [string, () => void][] = [];
    if (secured) mutations.push(['no credentials', () => void (delete headers.Authorization, delete headers.Cookie)]);
    if (body && bodySchema?.required?.length) mutations.push(['a required property dropped', () => void delete (body as Json)[pick(bodySchema.required ?? [])]]);
    if (body && typed.length) mutations.push(['a property of the wrong type', () => { const [name, schema] = pick(typed); (body as Json)[name] = wrongValue(resolve(schema)); }]);
    if (body && strings.length) mutations.push(['a NUL in a string', () => void ((body as Json)[pick(strings)[0]] = 'a\u0000b')]);
    if (body) mutations.push(['a body that is not JSON', () => void (headers['Content-Type'] = 'text/plain')]);
    if (queryParameters.length) mutations.push(['an unknown query parameter', () => query.append('no_such_parameter', '1')]);
    if (numericQuery.length) mutations.push(['a query value of the wrong type', () => query.set(pick(numericQuery).name, 'not-a-number')]);
    if (op.path.includes('{')) mutations.push(['a NUL in the path', () => void (path = op.path.replace(/\{[^}]+\}/, 'a%00b'))]);
    if (mutations.length === 0) return build(op, { seed, broken: false, mutation });
    const [name, apply] = mutations[mutation % mutations.length];
    apply();
    what = name;
  }
  const search = query.toString();
  const init: Request['init'] = { method: op.method.toUpperCase(), headers };
  if (body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    init.body = headers['Content-Type'] === 'application/json' ? JSON.stringify(body) : 'plain text';
  }
  return { url: `${baseUrl}${path}${search ? `?${search}` : ''}`, init, broken: what };
}

/** Sends one case and returns its findings (none: the answer is what the document says). */
async function exchange(op: Operation, request: Request): Promise<string[]> {
  let response: Response;
  try {
    response = await fetch(request.url, request.init);
  } catch (error) {
    if (error instanceof TypeError && /header|ByteString/i.test(String(error.cause ?? error.message))) {
      unsendable += 1; // a header value HTTP cannot carry (the schema allows any character): not a request at all
      return [];
    }
    throw error;
  }
  requests += 1;
  const where = `${op.method.toUpperCase()} ${op.path} → ${response.status}${request.broken ? ` (${request.broken})` : ''} [${request.init.method} ${request.url.slice(baseUrl.length, baseUrl.length + 120)}]`;
  statuses.set(String(response.status), (statuses.get(String(response.status)) ?? 0) + 1);
  const text = await response.text();
  const problems: string[] = [];
  const declared = op.responses[String(response.status)];
  if (!declared) problems.push(`${where}: status not declared (${Object.keys(op.responses).join(', ')})`);
  if (response.status >= 500) problems.push(`${where}: a 5xx: ${text.slice(0, 200)}`);
  if (request.broken && response.status < 300) problems.push(`${where}: a broken request was accepted`);
  if (!request.broken && response.status === 422 && !declaredRefusal(declared?.description, text)) problems.push(`${where}: a valid request refused: ${text.slice(0, 300)}`);
  if (declared) {
    for (const [name, header] of Object.entries(declared.headers ?? {})) {
      if (resolve(header).required === true && !response.headers.has(name)) problems.push(`${where}: required header ${name} missing`);
    }
    if (declared.content && text) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        problems.push(`${where}: the body is not JSON: ${text.slice(0, 100)}`);
      }
      const validate = ajv.getSchema(`api#/${pointer('paths', op.path, op.method, 'responses', String(response.status), 'content', 'application/json', 'schema')}`);
      if (body !== undefined && validate && !validate(body)) problems.push(`${where}: body ${text.slice(0, 200)}: ${ajv.errorsText(validate.errors)}`);
    } else if (!declared.content && text) {
      problems.push(`${where}: declared without a body, got ${text.slice(0, 100)}`);
    }
  }
  if (op.path === '/api/auth/password' && response.status === 204 && typeof request.init.body === 'string') {
    adminPassword = (JSON.parse(request.init.body) as { newPassword: string }).newPassword;
  }
  // Anything that can end the admin's session, or a refusal of its credentials: log in again next time.
  if (/logout|password|mfa\/disable|passkeys\/|oidc\/.*\/link/.test(op.path) || response.status === 401) current = undefined;
  return problems;
}

for (const op of operations) {
  if (Date.now() > deadline) {
    findings.push(`${op.method.toUpperCase()} ${op.path}: not reached within PROPERTY_SECONDS`);
    continue;
  }
  const before = findings.length;
  const result = await fc.check(
    fc.asyncProperty(fc.record({ seed: fc.nat(1_000_000), broken: fc.boolean(), mutation: fc.nat(1023) }), async (input) => {
      const problems = await exchange(op, await build(op, input));
      findings.push(...problems);
      return problems.length === 0;
    }),
    { numRuns: RUNS, endOnFailure: true, interruptAfterTimeLimit: Math.max(1000, deadline - Date.now()) },
  );
  // A thrown error (not a finding already listed): the run itself broke on this operation.
  if (result.failed && findings.length === before) findings.push(`${op.method.toUpperCase()} ${op.path}: ${String(result.errorInstance)}`);
}

const seen = [...statuses].sort(([a], [b]) => Number(a) - Number(b)).map(([status, count]) => `${status}×${count}`).join(' ');
console.log(`property run: ${operations.length} operations, ${requests} requests (${seen}), ${unsendable} unsendable header values skipped; ${findings.length} findings`);
for (const finding of [...new Set(findings)].slice(0, 50)) console.log(`  ${finding}`);
process.exit(findings.length === 0 ? 0 : 1);
