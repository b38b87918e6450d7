import { decoratedWord, keyboardWalkShare } from './password-patterns';
import { MIN_PASSWORD_SCORE, passwordScore } from './password-strength';
import { normaliseEmail } from './stores/email';

// What a user may choose as a password, beyond its length (which the route's JSON Schema states, so the
// OpenAPI document shows it): NIST SP 800-63B §3.1.1.2 / OWASP ASVS 5 V6.2 — refuse passwords that are
// known to be common, that are the account's own email, that are a common word or name decorated the way
// cracking rules try first (password-patterns.ts), or that are easy to guess (password-strength.ts),
// counting what the user's own details (email, name, current password) give away.

/** The longest password accepted anywhere: argon2 hashes it all, so an unbounded one is a CPU sink. */
export const PASSWORD_MAX_LENGTH = 128;

/** The JSON Schema of a password a user chooses (registration, password change). */
export function chosenPasswordSchema(minLength: number) {
  return { type: 'string', minLength, maxLength: PASSWORD_MAX_LENGTH } as const;
}

/**
 * A password whose neighbouring characters are keyboard neighbours this often is a walk, with its turns
 * (`2wsx3edc4rfv`: 9 of 11; `qwertyuiop`: all). Random text of 12 characters has about one in ten.
 */
const KEYBOARD_WALK_SHARE = 0.7;

let commonPasswords: Set<string> | undefined;

/**
 * About 49,000 passwords seen most often in breaches, from zxcvbn-ts's common dictionary (a kept package).
 * Loaded on first use: a service without registration or password change never holds the ~4 MB set.
 */
function common(): Set<string> {
  if (!commonPasswords) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberately lazy, see above
    const { dictionary } = require('@zxcvbn-ts/language-common') as { dictionary: Record<string, string[]> };
    commonPasswords = new Set(dictionary['passwords-common']);
  }
  return commonPasswords;
}

/** What is known of the account choosing a password: its email, and its name and current password where there are. */
export interface PasswordContext {
  email: string;
  name?: string | null;
  currentPassword?: string;
}

/** Why this password may not be chosen for this account, or undefined when it may. */
export function passwordRefusal(password: string, context: PasswordContext): string | undefined {
  const lowered = password.toLowerCase();
  const address = normaliseEmail(context.email);
  const [local] = address.split('@');
  if (lowered === address || lowered === local) return 'must not be your email address';
  if (context.currentPassword !== undefined && lowered === context.currentPassword.toLowerCase()) return 'must differ from the current password';
  if (common().has(lowered)) return 'is too common: it appears in lists of breached passwords';
  const name = context.name ?? '';
  const inputs = [address, local, ...local.split(/[._+-]/), name, ...name.split(/\s+/), context.currentPassword ?? ''];
  if (keyboardWalkShare(password) >= KEYBOARD_WALK_SHARE) return 'is a walk along the keyboard (like 1qaz2wsx3edc): password crackers try those first';
  if (decoratedWord(password, inputs) !== undefined) {
    return 'is a common word or name with digits or symbols added (like Summer2024!): password crackers try those first';
  }
  if (passwordScore(password, inputs) < MIN_PASSWORD_SCORE) {
    return 'is too easy to guess: use a longer passphrase of unrelated words, without your name or email';
  }
  return undefined;
}
