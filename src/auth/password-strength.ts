import type * as ZxcvbnCore from '@zxcvbn-ts/core';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import type * as LanguageCommon from '@zxcvbn-ts/language-common';
import type * as LanguageEn from '@zxcvbn-ts/language-en';

// How guessable a password is, by zxcvbn-ts's estimate (dictionaries of common passwords, words, names,
// keyboard patterns, sequences, repeats, l33t spellings, dates) — not by a blocklist alone, which let
// `aaaaaaaaaaaa`, `qwertyuiopas` and `P@ssw0rd2024` through.

/** Only this much of a password is estimated: matching grows fast with length, and 64 characters that are strong are enough. */
const ESTIMATED_LENGTH = 64;

let estimator: ZxcvbnFactory | undefined;

/**
 * Built on first use (about 50 MB and 150 ms): a service that never lets users choose a password
 * (no registration, no password change) never holds the dictionaries.
 */
function zxcvbn(): ZxcvbnFactory {
  if (!estimator) {
    /* eslint-disable @typescript-eslint/no-require-imports -- deliberately lazy, see above */
    const { ZxcvbnFactory: Factory } = require('@zxcvbn-ts/core') as typeof ZxcvbnCore;
    const common = require('@zxcvbn-ts/language-common') as typeof LanguageCommon;
    const en = require('@zxcvbn-ts/language-en') as typeof LanguageEn;
    /* eslint-enable @typescript-eslint/no-require-imports */
    estimator = new Factory({
      graphs: common.adjacencyGraphs,
      dictionary: {
        ...common.dictionary,
        'commonWords-en': en.dictionary['commonWords-en'],
        'firstnames-en': en.dictionary['firstnames-en'],
      },
      maxLength: ESTIMATED_LENGTH,
    });
  }
  return estimator;
}

/**
 * zxcvbn's score, 0 to 4. 3 ("safely unguessable") means at least 10^8 guesses: what OWASP ASVS V6.2.x and
 * NIST SP 800-63B expect a chosen password to resist when the hash is slow (argon2id here).
 */
export const MIN_PASSWORD_SCORE = 3;

/** zxcvbn's score for the password, counting what the user's own details give away (email, name, old password). */
export function passwordScore(password: string, userInputs: readonly string[]): number {
  return zxcvbn().check(password, userInputs.filter(Boolean) as string[]).score;
}
