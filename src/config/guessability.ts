import { spawnSync } from 'node:child_process';

// How many guesses zxcvbn-ts estimates a secret or a configured password would take, as log10, computed in
// a child process. Start-up needs the estimate once; the dictionaries cost ~50–170 MB of memory and up to
// half a second per long value, which should not stay in a service that never uses them again.

/** The estimator, as a script for `node -e`: the package paths are resolved here, where node_modules is known. */
function script(): string {
  const core = JSON.stringify(require.resolve('@zxcvbn-ts/core'));
  const common = JSON.stringify(require.resolve('@zxcvbn-ts/language-common'));
  const en = JSON.stringify(require.resolve('@zxcvbn-ts/language-en'));
  return `
const { ZxcvbnFactory } = require(${core});
const common = require(${common});
const en = require(${en});
const zxcvbn = new ZxcvbnFactory({ graphs: common.adjacencyGraphs, dictionary: { ...common.dictionary, ...en.dictionary } });
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const values = JSON.parse(input);
  process.stdout.write(JSON.stringify(values.map((value) => zxcvbn.check(value.text, value.inputs).guessesLog10)));
});`;
}

export interface Guessable {
  text: string;
  /** What an attacker knows besides (e.g. the email that goes with a password). */
  inputs: string[];
}

/** Estimates already made in this process (tests load many configurations with the same secrets). */
const known = new Map<string, number>();
const keyOf = (value: Guessable) => JSON.stringify([value.text, value.inputs]);

/** log10 of the estimated guesses of each value, in order. Throws when the estimate cannot be had. */
export function guessesLog10(values: readonly Guessable[]): number[] {
  const missing = values.filter((value) => !known.has(keyOf(value)));
  if (missing.length > 0) estimate(missing).forEach((guesses, index) => known.set(keyOf(missing[index]), guesses));
  return values.map((value) => known.get(keyOf(value))!);
}

function estimate(values: readonly Guessable[]): number[] {
  const child = spawnSync(process.execPath, ['-e', script()], {
    input: JSON.stringify(values),
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '' }, // nothing of this process's environment (its secrets) beyond the input
  });
  if (child.status !== 0) throw new Error(`the guessability estimate failed: ${child.error?.message ?? child.stderr.trim().split('\n')[0]}`);
  return JSON.parse(child.stdout) as number[];
}
