import { parseDurationSeconds } from './duration';
import { ConfigError } from './errors';

// Reading one environment variable as a typed, validated value: every setting goes through these, so a bad
// value always stops start-up with a ConfigError that names the variable and never prints the value.

export type Env = Record<string, string | undefined>;

/** A non-empty, trimmed value, or undefined when unset or blank. */
export function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new ConfigError(name, `must be one of: ${allowed.join(', ')}`);
  return value as T;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = read(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new ConfigError(name, 'must be true or false');
}

export function durationSeconds(env: Env, name: string, fallback: string): number {
  const seconds = parseDurationSeconds(read(env, name) ?? fallback);
  if (seconds === undefined)
    throw new ConfigError(name, 'must be a duration such as 15m, 1h, 7d, 900s or a number of seconds');
  return seconds;
}

// Node's timers take at most 2^31 - 1 ms (about 24.8 days); a longer delay silently becomes 1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration used as a timer delay, in milliseconds: bounded by what a Node timer can hold. With
 * `allowZero`, unset or `0` (`0s`, …) means none.
 */
export function timerMs(env: Env, name: string, fallback: string, allowZero = false): number {
  const value = read(env, name);
  if (allowZero && (value ?? fallback).match(/^0+[smhd]?$/)) return 0;
  const ms = durationSeconds(env, name, fallback) * 1000;
  if (ms > MAX_TIMER_MS) throw new ConfigError(name, 'must be at most 24 days (the longest delay a Node timer holds)');
  return ms;
}

export function byteSize(env: Env, name: string, fallback: string): number {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(read(env, name) ?? fallback);
  const bytes = match
    ? Number(match[1]) * { b: 1, kb: 1024, mb: 1024 * 1024 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb']
    : 0;
  if (bytes < 1 || bytes > 64 * 1024 * 1024)
    throw new ConfigError(name, 'must be a size such as 100kb or 1mb (at most 64mb)');
  return bytes;
}
