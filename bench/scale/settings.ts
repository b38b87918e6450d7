// The knobs of `make bench-scale`, from the environment, each bounded so no setting makes the run endless.
// docs/performance.md ("Lists at scale") describes them.
import { bounded, type Env } from '../settings';

export type ScaleEngine = 'sqlite' | 'postgres' | 'mysql';
export const SCALE_ENGINES: readonly ScaleEngine[] = ['sqlite', 'postgres', 'mysql'];

export interface ScaleSettings {
  engines: ScaleEngine[];
  /** Rows per owner, one owner per size, ascending; the users list is measured at the same sizes. */
  sizes: number[];
  /** Items per page. */
  pageSize: number;
  warmups: number;
  repetitions: number;
  /** A kind whose warm-up answer takes longer than this is measured with `slowRepetitions` (printed). */
  slowMs: number;
  slowRepetitions: number;
  /** No kind keeps measuring past this many seconds on one owner (at least 3 samples are kept). */
  kindBudgetSeconds: number;
  /** Capture the store's list SQL for the biggest owner and print the engine's plan for it. */
  plans: boolean;
  /** DATABASE_TIMEOUT of the service under test: long enough that a slow page is measured, not a 503. */
  databaseTimeout: string;
  /** BENCH_SCALE_KINDS: measure only the page kinds whose id starts with one of these (`q-`: the searches); all when empty. */
  kinds: string[];
  /** LIST_SEARCH_SCAN_LIMIT of the service under test (its default when unset). */
  searchScanLimit: string | undefined;
}

function list(env: Env, name: string, fallback: string): string[] {
  return (env[name]?.trim() || fallback)
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function readScaleSettings(env: Env = process.env): ScaleSettings {
  const engines = list(env, 'BENCH_SCALE_ENGINES', SCALE_ENGINES.join(','));
  for (const engine of engines) {
    if (!SCALE_ENGINES.includes(engine as ScaleEngine))
      throw new Error(`BENCH_SCALE_ENGINES: '${engine}' is not one of ${SCALE_ENGINES.join(', ')}`);
  }
  const sizes = list(env, 'BENCH_SCALE_SIZES', '1000,100000,1000000').map((raw) => {
    const size = Number(raw);
    if (!Number.isInteger(size) || size < 100 || size > 10_000_000)
      throw new Error(`BENCH_SCALE_SIZES: '${raw}' must be a whole number from 100 to 10000000`);
    return size;
  });
  if (new Set(sizes).size !== sizes.length || sizes.length < 2)
    throw new Error('BENCH_SCALE_SIZES: at least two different sizes (the smallest is the reference of the ratios)');
  return {
    engines: engines as ScaleEngine[],
    sizes: [...sizes].sort((a, b) => a - b),
    pageSize: bounded(env, 'BENCH_SCALE_PAGE_SIZE', 20, 1, 100),
    warmups: bounded(env, 'BENCH_SCALE_WARMUPS', 3, 0, 20),
    repetitions: bounded(env, 'BENCH_SCALE_REPETITIONS', 15, 3, 200),
    slowMs: bounded(env, 'BENCH_SCALE_SLOW_MS', 1000, 10, 60_000),
    slowRepetitions: bounded(env, 'BENCH_SCALE_SLOW_REPETITIONS', 5, 3, 200),
    kindBudgetSeconds: bounded(env, 'BENCH_SCALE_KIND_BUDGET', 30, 5, 600),
    plans: !['0', 'false', 'no', 'off'].includes((env.BENCH_SCALE_PLANS ?? '').trim().toLowerCase()),
    databaseTimeout: env.BENCH_SCALE_DATABASE_TIMEOUT?.trim() || '60s',
    kinds: list(env, 'BENCH_SCALE_KINDS', ''),
    searchScanLimit: env.LIST_SEARCH_SCAN_LIMIT?.trim() || undefined,
  };
}
