import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * OWASP's device cookie (Authentication Cheat Sheet, "Device cookies"): a client that has logged in to an
 * account before holds a token bound to that account, and is counted apart from everyone else. Guessers
 * spread over many addresses can lock an account for the unknown clients, never for its owner's devices.
 *
 * A token is `<account>.<session version>.<device id>.<signature>`: the account as its keyed hash (no email
 * in the cookie), the user's session version when it was issued, 128 random bits naming the device, and an
 * HMAC-SHA256 over the three with a key of its own, derived from REFRESH_TOKEN_SECRET. It is no credential:
 * it only chooses which throttle counter an attempt uses. Whatever ends the user's sessions (logout
 * everywhere, a password change or reset) raises the version, and with it every device token issued before
 * stops counting: a thief's device is no longer the owner's.
 */
export class DeviceTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('login-device-cookie/v1').digest();
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }

  /** A new device token for the account (its keyed hash) under the user's current session version. */
  issue(account: string, sessionVersion: number): string {
    const payload = `${account}.${sessionVersion}.${randomBytes(16).toString('base64url')}`;
    return `${payload}.${this.sign(payload)}`;
  }

  /** True when `token` looks like a device token of this account (before its session version is looked up). */
  claims(token: string | undefined, account: string): boolean {
    return token?.split('.').length === 4 && token.startsWith(`${account}.`);
  }

  /** The device id when `token` is a well-signed device token of this account under this session version; undefined otherwise. */
  deviceOf(token: string | undefined, account: string, sessionVersion: number): string | undefined {
    const parts = token?.split('.');
    if (!parts || parts.length !== 4 || parts[0] !== account || parts[1] !== String(sessionVersion)) return undefined;
    const expected = Buffer.from(this.sign(parts.slice(0, 3).join('.')));
    const given = Buffer.from(parts[3]);
    return given.length === expected.length && timingSafeEqual(given, expected) ? parts[2] : undefined;
  }
}
