import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Middleware } from 'koa';
import type { FieldError } from '../envelope';
import { unprocessable } from '../errors';
import type { RequestState, Schema } from './route';
import { nulCharacterErrors } from './text-rules';

// Two ajv instances, each compiling its schemas once, when routes are mounted. allErrors so a client learns
// every bad field in one round trip.
// - Bodies: no coercion, no defaults: the handler sees exactly what was sent, or nothing runs.
// - Params, query and headers arrive as strings: coerced where the schema asks for a number, integer or
//   boolean ('array' also turns a lone `?id=1` into [1] for an array schema), declared defaults filled in.
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false }));
const stringAjv = addFormats(new Ajv({ allErrors: true, strict: true, coerceTypes: 'array', useDefaults: true }));

/** Where a value comes from; it prefixes the field paths of its errors (`query.limit`). The body has none. */
export type Source = 'params' | 'query' | 'headers' | 'body';

/** `/address/city` → `address.city` (JSON Pointer escapes undone). */
function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(parent: string, child: string): string {
  return parent && child ? `${parent}.${child}` : parent || child;
}

/**
 * One error per field, the one the caller meant: a value refused by `anyOf` (a nullable or a choice of
 * types) gives ajv one error per branch plus "must match a schema in anyOf"; the branch errors about
 * `null` and the summary are dropped, the first remaining one stays.
 */
function onePerField(errors: FieldError[], raw: ErrorObject[]): FieldError[] {
  const kept = new Map<string, FieldError>();
  errors.forEach((error, index) => {
    const { keyword, params } = raw[index];
    const noise = keyword === 'anyOf' || keyword === 'oneOf' || (keyword === 'type' && params.type === 'null');
    if (!kept.has(error.field) && !noise) kept.set(error.field, error);
  });
  for (const error of errors) if (!kept.has(error.field)) kept.set(error.field, error); // only noise for it: keep one
  return [...kept.values()];
}

/** Turns ajv's errors into `{ field, message }`: the property path, and for a missing property its name. */
function toFieldErrors(errors: ErrorObject[], source: Source): FieldError[] {
  return onePerField(fieldErrors(errors, source), errors);
}

function fieldErrors(errors: ErrorObject[], source: Source): FieldError[] {
  const prefix = source === 'body' ? '' : source;
  return errors.map((error) => {
    const path = join(prefix, pointerToPath(error.instancePath));
    if (error.keyword === 'required') {
      return { field: join(path, String(error.params.missingProperty)), message: 'is required' };
    }
    if (error.keyword === 'additionalProperties') {
      return { field: join(path, String(error.params.additionalProperty)), message: 'is not allowed' };
    }
    if (error.keyword === 'enum')
      return {
        field: path || source,
        message: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`,
      };
    return { field: path || source, message: error.message ?? 'is invalid' };
  });
}

/** Compiles now, so a bad schema fails start-up with the route's name. */
function compile(source: Source, schema: Schema, where: string): ValidateFunction {
  try {
    return (source === 'body' ? bodyAjv : stringAjv).compile(schema);
  } catch (error) {
    throw new Error(`${where}: invalid ${source} schema: ${(error as Error).message}`, { cause: error });
  }
}

/** The body guard: 422 with field paths unless the parsed body matches. */
export function validateBody(schema: Schema, where: string): Middleware<RequestState> {
  const validate = compile('body', schema, where);
  return (ctx, next) => {
    const nul = nulCharacterErrors(ctx.request.body, '');
    if (nul.length > 0) throw unprocessable(nul);
    if (!validate(ctx.request.body)) throw unprocessable(toFieldErrors(validate.errors ?? [], 'body'));
    return next();
  };
}

/**
 * Guards for params, query and headers, in that order, for the ones the route declares (none: nothing runs).
 * Each validates the object the handler will read, in place: coerced values and defaults land there.
 * - params: the router's object for this request;
 * - query: Koa's parsed query (cached per request, so `ctx.query` returns the same, coerced object);
 * - headers: Node's header object (names lower-case).
 */
export function validateRequestParts(
  parts: { params?: Schema; query?: Schema; headers?: Schema },
  where: string,
): Middleware<RequestState>[] {
  const guards: Middleware<RequestState>[] = [];
  if (parts.params) {
    const validate = compile('params', parts.params, where);
    guards.push((ctx, next) =>
      check(validate, (ctx as { params?: unknown }).params ?? {}, 'params', next, parts.params),
    );
  }
  if (parts.query) {
    const validate = compile('query', closedUnlessOpen(parts.query), where);
    guards.push((ctx, next) => check(validate, ctx.query, 'query', next, parts.query));
  }
  if (parts.headers) {
    const validate = compile('headers', parts.headers, where);
    guards.push((ctx, next) => check(validate, ctx.req.headers, 'headers', next));
  }
  return guards;
}

/**
 * ajv coerces a string to a number as JavaScript does: `0x10`, `1e1`, `+5` and ` 5` all pass as integers.
 * A query or path number is written in decimal digits, and nothing else is read as one.
 */
const DECIMAL: Record<string, RegExp> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ };

function numberSpellingErrors(schema: Schema, value: unknown, source: Source): FieldError[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  if (value === null || typeof value !== 'object') return [];
  const errors: FieldError[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const given = (value as Record<string, unknown>)[name];
    const pattern = typeof property.type === 'string' ? DECIMAL[property.type] : undefined;
    if (pattern && typeof given === 'string' && !pattern.test(given)) {
      errors.push({
        field: `${source}.${name}`,
        message: `must be ${property.type === 'integer' ? 'an integer' : 'a number'} in decimal digits`,
      });
    }
  }
  return errors;
}

function check(
  validate: ValidateFunction,
  value: unknown,
  source: Source,
  next: () => Promise<unknown>,
  schema?: Schema,
): Promise<unknown> {
  const nul = nulCharacterErrors(value, source);
  if (nul.length > 0) throw unprocessable(nul);
  const spelling = schema ? numberSpellingErrors(schema, value, source) : [];
  if (spelling.length > 0) throw unprocessable(spelling);
  if (!validate(value)) throw unprocessable(toFieldErrors(validate.errors ?? [], source));
  return next();
}

/** A query schema refuses parameters it does not name, unless it says otherwise (`additionalProperties`). */
export function closedUnlessOpen(schema: Schema): Schema {
  return 'additionalProperties' in schema ? schema : { ...schema, additionalProperties: false };
}
