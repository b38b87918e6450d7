import type { LoginThrottle } from './login-throttle';
import type { PasswordHasher } from './passwords';
import type { UserRecord } from './stores/user-store';

/** Where an attempt comes from, as the login throttle counts it: the client's bucket (IP or prefix) and its device cookie. */
export interface AttemptOrigin {
  client: string;
  deviceToken: string | undefined;
}

/** Wraps each call to the throttle's counters (the module turns their outage into a 503, as for login). */
export type Counting = <T>(work: Promise<T>) => Promise<T>;

export type PasswordRecheck =
  | { ok: true }
  | { ok: false; refused: 'wrong-password' }
  | { ok: false; refused: 'throttled'; retryAfterSeconds: number };

/**
 * The signed-in user's password asked again, before anything that changes how one signs in (password change,
 * turning two-factor login on or off): counted by the login throttle before argon2 runs — the same counters
 * and device cookie as login, so these flows are no side door for guessing — and the attempt given back when
 * the password is right.
 */
export class PasswordCheck {
  constructor(
    private readonly throttle: LoginThrottle,
    private readonly hasher: PasswordHasher,
    private readonly counting: Counting,
  ) {}

  async check(user: UserRecord, password: string, origin: AttemptOrigin): Promise<PasswordRecheck> {
    const attempt = await this.counting(this.throttle.begin(user.email, origin.client, origin.deviceToken));
    if (!attempt.allowed) return { ok: false, refused: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
    const right = await this.throttle.checking(attempt, () => this.hasher.verify(user.passwordHash, password));
    if (!right) return { ok: false, refused: 'wrong-password' };
    await this.counting(this.throttle.succeeded(attempt));
    return { ok: true };
  }
}
