import type { Config } from '../config/config';
import type { DeviceTokens } from './device-tokens';
import type { FailureCounter, Limit } from './failure-counter';
import type { UserRecord } from './stores/user-store';

/** The current session version of the account with this email, or undefined when there is none. */
export type SessionVersionOf = (email: string) => Promise<number | undefined>;

/** A counted attempt: allowed (settle it with `succeeded`, or leave it counted as a failure), or refused. */
export type ThrottleAttempt =
  | { allowed: true; trustedDevice: boolean; clear: string[]; giveBack: string[] }
  | { allowed: false; retryAfterSeconds: number };

/**
 * Per-account login throttling, on top of the per-IP limit (OWASP ASVS 5 V6.3, RFC 9700 §4.x): failed
 * logins are counted per (account, client) and per account across all clients.
 *  - (account, client): after `pairFailures` failures that client may not try that account again until
 *    `window` has passed without an attempt. One address cannot lock a victim out elsewhere.
 *  - account: after `accountFailures` failures from anywhere, no unknown client may try it for the window.
 *  - a trusted device (it logged in to this account before and holds its device token, see DeviceTokens)
 *    is counted on its own, per (account, device), and not held by the account-wide lock: the owner
 *    is never locked out by guessers elsewhere.
 * Every attempt is counted before the password is verified and given back when it succeeds, so parallel
 * guesses cannot all pass (FailureCounter). The account is keyed by a keyed hash of the normalised
 * email, the same whether or not the account exists: throttling does not reveal which do, and no email
 * lands in Redis in the clear.
 */
export class LoginThrottle {
  constructor(
    private readonly counter: FailureCounter,
    private readonly settings: Config['loginThrottle'],
    /** Email → keyed hash (AuthEvents.emailHash). */
    private readonly accountKey: (email: string) => string,
    private readonly devices: DeviceTokens,
    /** Read only when a client sends a device token of the account: the token counts only under the current version. */
    private readonly sessionVersionOf: SessionVersionOf,
  ) {}

  /** The device a token names, when it is this account's and was issued under its current session version. */
  private async deviceOf(email: string, account: string, deviceToken: string | undefined): Promise<string | undefined> {
    if (!this.devices.claims(deviceToken, account)) return undefined;
    const version = await this.sessionVersionOf(email);
    return version === undefined ? undefined : this.devices.deviceOf(deviceToken, account, version);
  }

  /** Counts an attempt on this account from this client (and device token, if it sent one), or refuses it. */
  async begin(email: string, client: string, deviceToken?: string): Promise<ThrottleAttempt> {
    const account = this.accountKey(email);
    const device = await this.deviceOf(email, account, deviceToken);
    const own = device ? `login-throttle:device:${account}:${device}` : `login-throttle:pair:${account}:${client}`;
    const limits: Limit[] = [{ key: own, limit: this.settings.pairFailures }];
    const accountWide = `login-throttle:account:${account}`;
    if (!device) limits.push({ key: accountWide, limit: this.settings.accountFailures });
    const blockedMs = await this.counter.reserve(limits, this.settings.windowMs);
    if (blockedMs > 0) return { allowed: false, retryAfterSeconds: Math.ceil(blockedMs / 1000) };
    return { allowed: true, trustedDevice: device !== undefined, clear: [own], giveBack: device ? [] : [accountWide] };
  }

  /** The attempt succeeded: its own counter starts again, and it no longer counts against the account. */
  async succeeded(attempt: ThrottleAttempt): Promise<void> {
    if (attempt.allowed) await this.counter.release(attempt.clear, attempt.giveBack);
  }

  /** Runs the check of a counted attempt; if the check itself fails (store, hasher), the attempt is given back. */
  async checking<T>(attempt: ThrottleAttempt, check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (error) {
      if (attempt.allowed)
        await this.counter.release([], [...attempt.clear, ...attempt.giveBack]).catch(() => undefined);
      throw error;
    }
  }

  /** True when `deviceToken` is this user's device cookie, issued since their sessions last ended. */
  knowsDevice(user: Pick<UserRecord, 'email' | 'sessionVersion'>, deviceToken: string | undefined): boolean {
    return this.devices.deviceOf(deviceToken, this.accountKey(user.email), user.sessionVersion) !== undefined;
  }

  /** A device token for a client that just logged in to this user's account. */
  deviceToken(user: Pick<UserRecord, 'email' | 'sessionVersion'>): string {
    return this.devices.issue(this.accountKey(user.email), user.sessionVersion);
  }
}
