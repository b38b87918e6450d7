import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { Middleware } from 'koa';
import type { FieldError } from '../envelope';
import { unprocessable } from '../errors';
import type { JsonSchema, RequestState } from './route';

// One ajv instance for the whole service: schemas are compiled once, when routes are mounted.
// allErrors so a client learns every bad field in one round trip; no coercion, no defaults: the handler
// sees exactly what was sent, or nothing runs.
const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
addFormats(ajv);

/** `/address/city` → `address.city` (JSON Pointer escapes undone). */
function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}

/** Turns ajv's errors into `{ field, message }`: the property path, and for a missing property its name. */
function toFieldErrors(errors: ErrorObject[]): FieldError[] {
  return errors.map((error) => {
    const path = pointerToPath(error.instancePath);
    if (error.keyword === 'required') {
      return { field: join(path, String(error.params.missingProperty)), message: 'is required' };
    }
    if (error.keyword === 'additionalProperties') {
      return { field: join(path, String(error.params.additionalProperty)), message: 'is not allowed' };
    }
    return { field: path || 'body', message: error.message ?? 'is invalid' };
  });
}

/** Compiles the schema now (a bad schema fails start-up) and returns the guard that applies it. */
export function validateBody(schema: JsonSchema, where: string): Middleware<RequestState> {
  let check;
  try {
    check = ajv.compile(schema);
  } catch (error) {
    throw new Error(`${where}: invalid body schema: ${(error as Error).message}`, { cause: error });
  }
  const validate = check;
  return async (ctx, next) => {
    if (!validate(ctx.request.body)) throw unprocessable(toFieldErrors(validate.errors ?? []));
    await next();
  };
}
