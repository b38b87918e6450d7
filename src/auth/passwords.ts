import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { DEFAULT_HASH_CONCURRENCY, DEFAULT_HASH_QUEUE, HashQueue } from './hash-queue';

/** argon2id parameters: OWASP Password Storage Cheat Sheet's first recommendation (19 MiB, t=2, p=1). */
export interface HashParameters {
  memoryCost: number; // KiB
  timeCost: number;
  parallelism: number;
}

/**
 * The stored hash of a user who has no password (made by a first sign-in at an OpenID Connect provider):
 * no argon2 hash, so no password matches it. They sign in through the provider, or set a password by reset.
 */
export const NO_PASSWORD = '!none';

/** Whether a stored hash is a password at all (see NO_PASSWORD). */
export function hasPassword(passwordHash: string): boolean {
  return passwordHash !== NO_PASSWORD;
}

const OWASP_ARGON2ID: HashParameters = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/**
 * Hashes and checks passwords with argon2id, at most `queue.concurrency` at once (see HashQueue); past the
 * queue's bound both throw HashQueueFullError (a 503). `verify` never throws for a malformed stored hash
 * (a corrupt row must read as "wrong password", not as a 500).
 */
export class PasswordHasher {
  constructor(
    readonly parameters: HashParameters = OWASP_ARGON2ID,
    readonly queue = new HashQueue(DEFAULT_HASH_CONCURRENCY, DEFAULT_HASH_QUEUE),
  ) {}

  hash(password: string): Promise<string> {
    return this.queue.run(() => argon2.hash(password, { type: argon2.argon2id, ...this.parameters }));
  }

  verify(hash: string, password: string): Promise<boolean> {
    return this.queue.run(async () => {
      try {
        return await argon2.verify(hash, password);
      } catch {
        return false;
      }
    });
  }

  /**
   * True when the stored hash was made with other parameters (or another algorithm) than today's. A hash that
   * begins as argon2 writes today's (its parameters in that order) needs none, told without parsing it: this
   * runs on every login.
   */
  needsRehash(hash: string): boolean {
    const { memoryCost, parallelism, timeCost } = this.parameters;
    if (hash.startsWith(`$argon2id$v=19$m=${memoryCost},p=${parallelism},t=${timeCost}$`)) return false;
    try {
      return !hash.startsWith('$argon2id$') || argon2.needsRehash(hash, this.parameters);
    } catch {
      return true;
    }
  }

  /**
   * A hash of a random password nobody knows, made once at start-up. Login verifies against it when the
   * email is unknown, so an unknown user costs the same argon2 work as a wrong password.
   */
  createDummyHash(): Promise<string> {
    return this.hash(randomBytes(32).toString('base64url'));
  }
}
