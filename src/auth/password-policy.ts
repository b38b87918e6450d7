import { commonPasswords, decoratedWord, keyboardWalkShare } from './password-patterns';
import { MIN_PASSWORD_SCORE, passwordScore } from './password-strength';
import { normaliseEmail } from './stores/email';

// What a user may choose as a password, beyond its length (which the route's JSON Schema states, so the
// OpenAPI document shows it): NIST SP 800-63B §3.1.1.2 / OWASP ASVS 5 V6.2 — refuse passwords that are
// known to be common, that are the account's own email, that are a common word or name decorated the way
// cracking rules try first (password-patterns.ts), or that are easy to guess (password-strength.ts),
// counting what the user's own details (email, name, current password) give away.

/** The longest password accepted anywhere: argon2 hashes it all, so an unbounded one is a CPU sink. */
export const PASSWORD_MAX_LENGTH = 128;

/** No U+0000 in any text a request carries (src/http/routing/text-rules.ts), stated where it matters most. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** A password as login and every check of the current one accept it: the bounds, no NUL. */
export const PASSWORD_INPUT = {
  type: 'string',
  minLength: 1,
  maxLength: PASSWORD_MAX_LENGTH,
  pattern: NO_NUL_PATTERN,
  examples: ['lantern harbour quiet seven'],
} as const;

/**
 * The JSON Schema of a password a user chooses (registration, password change). The length and NUL rules are
 * the schema's; what no schema can say (common, guessable, the account's own email) is its description, and
 * a 422 naming the field when broken.
 */
export function chosenPasswordSchema(minLength: number) {
  return {
    type: 'string',
    minLength,
    maxLength: PASSWORD_MAX_LENGTH,
    pattern: NO_NUL_PATTERN,
    description:
      `${minLength} to ${PASSWORD_MAX_LENGTH} characters, no NUL (U+0000); refused with a 422 on the field when it is the account's ` +
      'email or its local part, the current password, one of the ~49,000 most common breached passwords, or too easy to guess ' +
      "(zxcvbn-ts score below 3, counting the account's name and email): a passphrase of unrelated words passes",
    examples: ['lantern harbour quiet seven '.repeat(5).slice(0, Math.max(minLength, 27))],
  } as const;
}

/**
 * A password whose neighbouring characters are keyboard neighbours this often is a walk, with its turns
 * (`2wsx3edc4rfv`: 9 of 11; `qwertyuiop`: all). Random text of 12 characters has about one in ten.
 */
const KEYBOARD_WALK_SHARE = 0.7;

/** What is known of the account choosing a password: its email, and its name and current password where there are. */
export interface PasswordContext {
  email: string;
  name?: string | null;
  currentPassword?: string;
}

/** The 422 a route that lets a user choose a password declares for the rules beyond its schema. */
export const PASSWORD_POLICY_REFUSAL =
  "The password breaks the policy (`password`): the account's email, the current password, common or too easy to guess";

/** Why this password may not be chosen for this account, or undefined when it may. */
export function passwordRefusal(password: string, context: PasswordContext): string | undefined {
  const lowered = password.toLowerCase();
  const address = normaliseEmail(context.email);
  const [local] = address.split('@');
  if (lowered === address || lowered === local) return 'must not be your email address';
  if (context.currentPassword !== undefined && lowered === context.currentPassword.toLowerCase())
    return 'must differ from the current password';
  if (commonPasswords().has(lowered)) return 'is too common: it appears in lists of breached passwords';
  const name = context.name ?? '';
  const inputs = [address, local, ...local.split(/[._+-]/), name, ...name.split(/\s+/), context.currentPassword ?? ''];
  if (keyboardWalkShare(password) >= KEYBOARD_WALK_SHARE)
    return 'is a walk along the keyboard (like 1qaz2wsx3edc): password crackers try those first';
  if (decoratedWord(password, inputs) !== undefined) {
    return 'is a common word or name with digits or symbols added (like Summer2024!): password crackers try those first';
  }
  if (passwordScore(password, inputs) < MIN_PASSWORD_SCORE) {
    return 'is too easy to guess: use a longer passphrase of unrelated words, without your name or email';
  }
  return undefined;
}
