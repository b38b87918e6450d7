import { randomInt } from 'node:crypto';
import { digestOf } from '../account-links';

/** How many recovery codes a confirmed enrolment gets; each works once. */
export const RECOVERY_CODE_COUNT = 10;

// 16 characters from a 31-symbol alphabet (79 random bits), shown as four groups: xxxx-xxxx-xxxx-xxxx.
// Without 0/o and 1/i/l, so that a code copied by hand from paper reads back the same.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 16;

/** The shape the API accepts: the groups' hyphens and spaces are optional, letters in either case. */
export const RECOVERY_CODE_PATTERN = '^[A-Za-z0-9]{4}([- ]?[A-Za-z0-9]{4}){3}$';

export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const characters = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return characters.match(/.{4}/g)!.join('-');
  });
}

/**
 * What is stored of a recovery code: the SHA-256 of its 16 characters, lower-cased, without separators. 79
 * random bits need no slow hash (no dictionary can reach them, like the refresh tokens' 128); the digest
 * keeps a copy of the table from being a list of working codes.
 */
export function recoveryCodeDigest(code: string): string {
  return digestOf(code.replace(/[- ]/g, '').toLowerCase());
}
