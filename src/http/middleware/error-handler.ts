import type { ParameterizedContext } from 'koa';
import { HashQueueFullError } from '../../auth/hash-queue';
import type { Logger } from '../../logger';
import {
  DuplicateKeyError,
  MissingReferenceError,
  ReferencedRecordError,
  RuleViolationError,
  StoreUnavailableError,
  UniqueKeyError,
  WriteContendedError,
  WriteRefusedError,
} from '../../stores/errors';
import { fail, type FieldError } from '../envelope';
import { answered, answerJson } from '../json-answer';
import { HttpError, notFound } from '../errors';
import type { RequestState } from '../routing/route';

/** A full password-hash queue drains within a second or so (src/auth/hash-queue.ts). */
const HASH_QUEUE_RETRY_AFTER_SECONDS = 1;

interface Described {
  status: number;
  message: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/** Client errors raised by libraries (koa's ctx.throw, http-errors, co-body) carry `status` and `expose`. */
interface LibraryError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

/** What a client is told to wait when the database is unreachable: about how long a reconnect takes. */
const STORE_RETRY_AFTER_SECONDS = 5;

function describe(error: unknown): Described {
  if (error instanceof HttpError) return { status: error.status, message: error.message, ...error.details };
  if (error instanceof StoreUnavailableError) {
    return {
      status: 503,
      message: 'Service temporarily unavailable, try again shortly',
      headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
    };
  }
  if (error instanceof DuplicateKeyError) return { status: 409, message: 'The resource already exists' };
  // A resource's rules (src/stores/kit/resource.ts), told the same on every engine.
  if (error instanceof UniqueKeyError)
    return { status: 409, message: `A record with this ${error.fields.join(' and ')} exists already` };
  if (error instanceof ReferencedRecordError) return { status: 409, message: error.message };
  if (error instanceof MissingReferenceError)
    return { status: 422, message: 'Validation failed', errors: [{ field: error.field, message: error.message }] };
  if (error instanceof RuleViolationError)
    return { status: 422, message: 'Validation failed', errors: [{ field: error.field, message: error.message }] };
  if (error instanceof WriteRefusedError)
    return {
      status: 422,
      message: 'Validation failed',
      errors: error.problems.map(({ field, message }) => ({ field, message })),
    };
  if (error instanceof WriteContendedError) return { status: 409, message: error.message };
  if (error instanceof HashQueueFullError) {
    return {
      status: 503,
      message: 'Too many sign-ins at once, try again shortly',
      headers: { 'Retry-After': String(HASH_QUEUE_RETRY_AFTER_SECONDS) },
    };
  }
  const candidate = (error ?? {}) as LibraryError;
  const status = Number(candidate.status ?? candidate.statusCode);
  if (Number.isInteger(status) && status >= 400 && status < 500 && candidate.expose !== false) {
    const headers =
      candidate.headers && typeof candidate.headers === 'object'
        ? (candidate.headers as Record<string, string>)
        : undefined;
    return { status, message: typeof candidate.message === 'string' ? candidate.message : 'Bad request', headers };
  }
  return { status: 500, message: 'Internal server error' };
}

/** What the outermost step (request-context.ts) asks of the error handling, around the rest of the chain. */
export interface ErrorAnswers {
  /** After the chain settled without an error: a status without a body still becomes an error (throws). */
  settle(ctx: ParameterizedContext<RequestState>): void;
  /** Any error of the chain (or of `settle`) as the fail envelope with its status. */
  answer(ctx: ParameterizedContext<RequestState>, error: unknown): void;
}

/**
 * The one place errors become responses: the fail envelope with the error's status. Anything unexpected is
 * a 500 whose body says nothing about the cause (no stack, SQL or secret); the cause goes to the log with
 * the request id so it can be found. Called by the request context, which holds the one try/catch.
 */
export function errorAnswers(logger: Logger): ErrorAnswers {
  return {
    settle(ctx) {
      // A status without a body gets the envelope too: 404 when no route matched, or the router's
      // 405 (with its Allow header) / 501 for a method it does not know.
      if (!answered(ctx) && ctx.status >= 400) {
        throw ctx.status === 404 ? notFound('No route matches this path') : new HttpError(ctx.status, ctx.message);
      }
      // The router answers OPTIONS with 200 and an empty body: no content is 204, the bodiless answer.
      if (ctx.method === 'OPTIONS' && ctx.status === 200 && ctx.body === '') ctx.status = 204;
    },
    answer(ctx, error) {
      const described = describe(error);
      if (described.status === 500) logger.error({ reqId: ctx.state.requestId, err: error }, 'unhandled error');
      // Only the store's own outages here: other 503s (readiness while stopping, the rate limiter's refusal)
      // are deliberate answers that log themselves, at their own rate.
      else if (error instanceof StoreUnavailableError)
        logger.warn({ reqId: ctx.state.requestId, err: error }, 'database unavailable');
      if (described.headers) ctx.set(described.headers);
      answerJson(ctx, described.status, fail(described.message, described.errors));
    },
  };
}
