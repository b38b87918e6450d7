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
const dictionary = { ...common.dictionary, ...en.dictionary };
const zxcvbn = new ZxcvbnFactory({ graphs: common.adjacencyGraphs, dictionary });
let listed;
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const values = JSON.parse(input);
  process.stdout.write(JSON.stringify(values.map((value) => {
    const result = zxcvbn.check(value.text, value.inputs);
    const found = result.sequence.filter((match) => match.pattern !== 'bruteforce');
    listed ??= new Set(Object.values(dictionary).flat().map((word) => String(word).toLowerCase()));
    return [result.guessesLog10, found.length === result.sequence.length, found.map((match) => match.token.length), listed.has(value.text.toLowerCase())];
  })));
});`;
}

export interface Guessable {
  text: string;
  /** What an attacker knows besides (e.g. the email that goes with a password). */
  inputs: string[];
}

/** zxcvbn-ts's estimate of one value. */
export interface Estimate {
  /** log10 of the guesses. */
  guessesLog10: number;
  /** True when its patterns (dictionaries, dates, sequences, repeats, keyboard walks) explain all of it: no character left to brute force. */
  explained: boolean;
  /** The length of each pattern it found (`group` and `king` in `matezgroupking`: 5 and 4). */
  patternLengths: number[];
  /** True when a dictionary lists it as it is (lowercased), even where zxcvbn-ts prices it cheaper as letters (`web`). */
  listed: boolean;
}

/** Estimates already made in this process (tests load many configurations with the same secrets). */
const known = new Map<string, Estimate>();
const keyOf = (value: Guessable) => JSON.stringify([value.text, value.inputs]);

/** zxcvbn-ts's estimate of each value, in order, in one child process. Throws when the estimate cannot be had. */
export function estimates(values: readonly Guessable[]): Estimate[] {
  const missing = [...new Map(values.filter((value) => !known.has(keyOf(value))).map((value) => [keyOf(value), value])).values()];
  if (missing.length > 0) estimate(missing).forEach((result, index) => known.set(keyOf(missing[index]), result));
  return values.map((value) => known.get(keyOf(value))!);
}

/** log10 of the estimated guesses of each value, in order. Throws when the estimate cannot be had. */
export function guessesLog10(values: readonly Guessable[]): number[] {
  return estimates(values).map((result) => result.guessesLog10);
}

function estimate(values: readonly Guessable[]): Estimate[] {
  const child = spawnSync(process.execPath, ['-e', script()], {
    input: JSON.stringify(values),
    encoding: 'utf8',
    timeout: 180_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '' }, // nothing of this process's environment (its secrets) beyond the input
  });
  if (child.status !== 0) throw new Error(`the guessability estimate failed: ${child.error?.message ?? child.stderr.trim().split('\n')[0]}`);
  return (JSON.parse(child.stdout) as [number, boolean, number[], boolean][]).map(([guessesLog10, explained, patternLengths, listed]) => ({ guessesLog10, explained, patternLengths, listed }));
}
