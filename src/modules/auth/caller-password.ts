import type { AttemptOrigin } from '../../auth/password-check';
import type { UserRecord, UserStore } from '../../auth/stores/user-store';
import { clientBucket } from '../../http/client-ip';
import { HttpError, unauthorized } from '../../http/errors';
import { callerOf } from '../../http/routing/caller';
import type { RequestState } from '../../http/routing/route';
import { readDeviceCookie } from './cookie';

// The HTTP side of the flows that count a password check (login, password change, two-factor enrolment).

/** The caller's stored record: 401 when they were deleted since their access token was issued. */
export async function storedCaller(users: Pick<UserStore, 'findById'>, ctx: { state: RequestState }): Promise<UserRecord> {
  const user = await users.findById(callerOf(ctx).id);
  if (!user) throw unauthorized();
  return user;
}

/** Where an attempt comes from, as the login throttle counts it: the client's bucket and its device cookie. */
export function attemptOrigin(ctx: Parameters<typeof clientBucket>[0] & Parameters<typeof readDeviceCookie>[0]): AttemptOrigin {
  return { client: clientBucket(ctx), deviceToken: readDeviceCookie(ctx) };
}

/** The 429 of a throttled password check (the account's counters are full). */
export function tooManyAttempts(retryAfterSeconds: number, what = 'failed attempts'): HttpError {
  return new HttpError(429, `Too many ${what} for this account; try again in ${retryAfterSeconds} seconds`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}
