import type { Config } from '../config/config';
import type { FailureCounter } from './failure-counter';

/**
 * Per-account login throttling, on top of the per-IP limit (OWASP ASVS 5 V6.3, RFC 9700 §4.x): failed
 * logins are counted per (account, client) and per account across all clients.
 *  - (account, client): after `pairFailures` consecutive failures that client may not try that account
 *    again until `window` has passed without a failure. One address cannot lock a victim out elsewhere.
 *  - account: after `accountFailures` failures from anywhere, nobody may try it for the window. Set well
 *    above the pair limit, this slows a guesser spread over many addresses (one address adds at most
 *    `pairFailures` to it per window).
 * A successful login clears that (account, client) pair. The account is keyed by a keyed hash of the
 * normalised email, the same whether or not the account exists, so throttling does not reveal which do —
 * and no email lands in Redis in the clear.
 */
export class LoginThrottle {
  constructor(
    private readonly counter: FailureCounter,
    private readonly settings: Config['loginThrottle'],
    /** Email → keyed hash (AuthEvents.emailHash). */
    private readonly accountKey: (email: string) => string,
  ) {}

  private keys(email: string, client: string): [pair: string, account: string] {
    const account = this.accountKey(email);
    return [`login-throttle:pair:${account}:${client}`, `login-throttle:account:${account}`];
  }

  /** Seconds until this client may try this account again, or undefined when it may now. */
  async retryAfterSeconds(email: string, client: string): Promise<number | undefined> {
    const [pair, account] = await this.counter.peek(this.keys(email, client));
    const blocking = [
      pair.count >= this.settings.pairFailures ? pair.ttlMs : 0,
      account.count >= this.settings.accountFailures ? account.ttlMs : 0,
    ];
    const waitMs = Math.max(...blocking);
    return waitMs > 0 ? Math.ceil(waitMs / 1000) : undefined;
  }

  failed(email: string, client: string): Promise<void> {
    return this.counter.add(this.keys(email, client), this.settings.windowMs);
  }

  succeeded(email: string, client: string): Promise<void> {
    return this.counter.clear(this.keys(email, client)[0]);
  }
}
