import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A whole number from the environment, with a default and bounds (a typo must not make a run unbounded). */
export function setting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}

/**
 * The parent of every temp dir a driver makes: RELIABILITY_RUN_ROOT when set (CI's script sets it, and
 * kills whatever pid files are left below it on exit), else the system temp dir.
 */
export function tempDirectory(prefix: string): string {
  return mkdtempSync(join(process.env.RELIABILITY_RUN_ROOT || tmpdir(), `reliability-${prefix}-`));
}

/** Where a run keeps its logs (the service's, PostgreSQL's): printed, and left for a look after a failure. */
export function runDirectory(name: string): string {
  return tempDirectory(name);
}

export const mib = (kib: number) => (kib / 1024).toFixed(1);
