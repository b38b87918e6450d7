import type { LoginThrottle } from '../../auth/login-throttle';
import type { PasswordHasher } from '../../auth/passwords';
import type { UserRecord, UserStore } from '../../auth/stores/user-store';
import { clientBucket } from '../../http/client-ip';
import { HttpError, unauthorized } from '../../http/errors';
import { callerOf } from '../../http/routing/caller';
import type { RequestState } from '../../http/routing/route';
import { readDeviceCookie } from './cookie';
import { counted } from './rate-limit';

// For the signed-in routes that ask for the password again (password change, turning two-factor login off).

/** The caller's stored record: 401 when they were deleted since their access token was issued. */
export async function storedCaller(users: Pick<UserStore, 'findById'>, ctx: { state: RequestState }): Promise<UserRecord> {
  const user = await users.findById(callerOf(ctx).id);
  if (!user) throw unauthorized();
  return user;
}

/**
 * Checks the caller's password as a login checks one: counted by the login throttle before argon2 runs (the
 * same counters and device cookie, so these routes are no side door for guessing), 429 when the account's
 * counters are full, the attempt given back when the password is right. True when it is.
 */
export async function callerPasswordIsRight(
  deps: { throttle: LoginThrottle; hasher: PasswordHasher },
  ctx: Parameters<typeof clientBucket>[0] & Parameters<typeof readDeviceCookie>[0],
  user: UserRecord,
  password: string,
): Promise<boolean> {
  const attempt = await counted(deps.throttle.begin(user.email, clientBucket(ctx), readDeviceCookie(ctx)));
  if (!attempt.allowed) {
    throw new HttpError(429, `Too many failed attempts for this account; try again in ${attempt.retryAfterSeconds} seconds`, {
      headers: { 'Retry-After': String(attempt.retryAfterSeconds) },
    });
  }
  const right = await deps.throttle.checking(attempt, () => deps.hasher.verify(user.passwordHash, password));
  if (right) await counted(deps.throttle.succeeded(attempt));
  return right;
}
