import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * OWASP's device cookie (Authentication Cheat Sheet, "Device cookies"): a client that has logged in to an
 * account before holds a token bound to that account, and is counted apart from everyone else. Guessers
 * spread over many addresses can lock an account for the unknown clients, never for its owner's devices.
 *
 * A token is `<account>.<device id>.<signature>`: the account as its keyed hash (no email in the cookie),
 * 128 random bits naming the device, and an HMAC-SHA256 over both with a key of its own, derived from
 * REFRESH_TOKEN_SECRET. It is no credential: it only chooses which throttle counter an attempt uses.
 */
export class DeviceTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('login-device-cookie/v1').digest();
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  /** A new device token for the account (its keyed hash). */
  issue(account: string): string {
    const payload = `${account}.${randomBytes(16).toString('base64url')}`;
    return `${payload}.${this.sign(payload)}`;
  }

  /** The device id when `token` is a well-signed device token of this account; undefined otherwise. */
  deviceOf(token: string | undefined, account: string): string | undefined {
    const parts = token?.split('.');
    if (!parts || parts.length !== 3 || parts[0] !== account) return undefined;
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    return given.length === expected.length && timingSafeEqual(given, expected) ? parts[1] : undefined;
  }
}
