// The knobs of a bench run, from the environment. Defaults suit a 2-core machine and keep `make bench`
// (build included) under five minutes; every value is bounded so no setting makes the run endless.

export interface BenchSettings {
  /** Measured rounds per scenario; each round runs the service, bare Koa and the raw server once, order alternating. */
  rounds: number;
  /** Seconds per measured run. */
  durationSeconds: number;
  /** Seconds of unmeasured load on each server before a scenario's rounds (JIT, caches, pools). */
  warmupSeconds: number;
  connections: number;
  pipelining: number;
  /** Connections for login: argon2 bounds it, more connections only lengthen the queue. */
  loginConnections: number;
  /** Seconds the service is left alone before the idle and after-logins RSS readings. */
  settleSeconds: number;
  /** Only these scenario ids (comma-separated), or all. */
  scenarios: string[] | undefined;
  /** Run the service with --cpu-prof and write the profile under bench/results/profiles/. */
  profile: boolean;
  /** Further node flags for the service, e.g. --trace-gc (which NODE_OPTIONS refuses). */
  nodeFlags: string[];
  /** Run the service with Prometheus metrics on (METRICS_PORT, on a free port): to measure what they cost. */
  metrics: boolean;
  /** Hard stop for the whole run: the harness kills everything and fails after this long. */
  maxRunSeconds: number;
}

export type Env = Record<string, string | undefined>;

/** A whole-number setting within [min, max], or `fallback` when unset. */
export function bounded(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
  }
  return value;
}

export function readSettings(env: Env = process.env): BenchSettings {
  const scenarios = env.BENCH_SCENARIOS?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    rounds: bounded(env, 'BENCH_ROUNDS', 3, 1, 20),
    durationSeconds: bounded(env, 'BENCH_DURATION', 3, 1, 60),
    warmupSeconds: bounded(env, 'BENCH_WARMUP', 2, 0, 30),
    connections: bounded(env, 'BENCH_CONNECTIONS', 50, 1, 1000),
    pipelining: bounded(env, 'BENCH_PIPELINING', 1, 1, 32),
    loginConnections: bounded(env, 'BENCH_LOGIN_CONNECTIONS', 8, 1, 1000),
    settleSeconds: bounded(env, 'BENCH_SETTLE', 3, 0, 60),
    scenarios: scenarios?.length ? scenarios : undefined,
    profile: ['1', 'true', 'yes'].includes((env.BENCH_PROFILE ?? '').toLowerCase()),
    nodeFlags: env.BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [],
    metrics: ['1', 'true', 'yes', 'on'].includes((env.BENCH_METRICS ?? '').toLowerCase()),
    maxRunSeconds: bounded(env, 'BENCH_MAX_SECONDS', 900, 30, 7200),
  };
}
