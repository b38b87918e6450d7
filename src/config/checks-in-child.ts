import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ChildCheck } from './checks-child';

// The production start-up checks that need word lists (the secret rule's ~53,000 words, the password policy's
// zxcvbn-ts dictionaries and breached-password list) run in a short-lived child process. Run here, they
// would leave ~50 MiB in this process for its whole life (the packages stay in the module cache, the sets
// at module scope, and the start-up burst grows V8's young generation): a service that never lets a user
// choose a password would carry them only to have checked its configuration once (docs/performance.md,
// "Memory"). The child gets the values on stdin (never argv or its environment), answers one refusal or
// null per check on stdout, and exits, returning everything to the system.

export type { ChildCheck } from './checks-child';

/** Answers already had in this process, by a hash of the check: tests load many configurations with the same values. */
const answered = new Map<string, string | null>();
const keyOf = (check: ChildCheck) => createHash('sha256').update(JSON.stringify(check)).digest('base64url');

/**
 * The child's entry and how node runs it: the built JavaScript as it is (production), or the TypeScript
 * source through tsx (tests and `npm run dev`, where this file is itself TypeScript).
 */
function childCommand(): string[] {
  const fromSource = __filename.endsWith('.ts');
  const entry = join(__dirname, fromSource ? 'checks-child.ts' : 'checks-child.js');
  return fromSource ? ['--require', require.resolve('tsx/cjs'), entry] : [entry];
}

/**
 * Each check's refusal (why the value may not be used), or undefined when it passes, in order. Throws when the
 * checks could not run: start-up must not go on unchecked.
 */
export function refusalsInChild(checks: readonly ChildCheck[]): (string | undefined)[] {
  const missing = checks.filter((check) => !answered.has(keyOf(check)));
  if (missing.length > 0) {
    const child = spawnSync(process.execPath, childCommand(), {
      input: JSON.stringify(missing),
      encoding: 'utf8',
      timeout: 120_000, // the word lists load in well under a second; a machine shared with other jobs can be slow
      maxBuffer: 1024 * 1024,
      env: { PATH: process.env.PATH ?? '' }, // nothing of this process's environment (its secrets) beyond the input
    });
    if (child.status !== 0) {
      throw new Error(
        `the start-up checks could not run: ${child.error?.message ?? (child.stderr.trim().split('\n')[0] || `exit ${child.status ?? child.signal}`)}`,
      );
    }
    const refusals = JSON.parse(child.stdout) as (string | null)[];
    if (!Array.isArray(refusals) || refusals.length !== missing.length)
      throw new Error('the start-up checks answered something unexpected');
    missing.forEach((check, index) => answered.set(keyOf(check), refusals[index]));
  }
  return checks.map((check) => answered.get(keyOf(check)) ?? undefined);
}
