import type { AttemptOrigin } from '../../auth/password-check';
import { clientBucket } from '../../http/client-ip';
import { HttpError } from '../../http/errors';
import { readDeviceCookie } from './cookie';

// The HTTP side of the flows that count a password check (login, and a proof of the owner given in a body).

/** Where an attempt comes from, as the login throttle counts it: the client's bucket and its device cookie. */
export function attemptOrigin(
  ctx: Parameters<typeof clientBucket>[0] & Parameters<typeof readDeviceCookie>[0],
): AttemptOrigin {
  return { client: clientBucket(ctx), deviceToken: readDeviceCookie(ctx) };
}

/** The 429 of a throttled password check (the account's counters are full). */
export function tooManyAttempts(retryAfterSeconds: number, what = 'failed attempts'): HttpError {
  return new HttpError(429, `Too many ${what} for this account; try again in ${retryAfterSeconds} seconds`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}
