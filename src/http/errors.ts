import type { FieldError } from './envelope';

/**
 * An error a handler or guard raises on purpose: it carries the HTTP status and a message safe to show
 * the client. The error handler turns it into the fail envelope.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Authentication required') => new HttpError(401, message);
export const forbidden = (message = 'Forbidden') => new HttpError(403, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const unprocessable = (errors: FieldError[]) => new HttpError(422, 'Validation failed', { errors });
/** 503 for a dependency that is down (not the database: StoreUnavailableError covers that), with Retry-After. */
export const unavailable = (retryAfterSeconds: number) =>
  new HttpError(503, 'Service temporarily unavailable, try again shortly', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
