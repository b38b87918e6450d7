import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Start-up allocates far more than the service keeps: ~1,000 modules compiled, schemas built and compiled,
// the API document built, migrations run. V8 grows its young generation for that burst (to 16 MiB a
// semi-space) and keeps it committed, with the old generation's garbage, while the process idles: nothing
// allocates, so its memory reducer, which waits for a low allocation rate it measures only at collections,
// never runs. One memory-reducing collection once start-up is done gives that back (~18 MiB of RSS on
// SQLite, docs/performance.md "Memory"); under load the young generation grows again as it needs, and the
// same collection gives it back once the load is over (idle-memory-release.ts).

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Runs one full, memory-reducing garbage collection (V8's "last resort" flavour: the heap compacted, empty
 * pages returned to the system). Node offers it only through the `--expose-gc` flag; it is turned on just long
 * enough to take the function from a fresh context, so no `gc` is left on this process's globals or on any
 * context made later. Returns the milliseconds it took.
 */
export function releaseMemory(): number {
  const started = performance.now();
  const exposed = typeof (globalThis as { gc?: unknown }).gc === 'function'; // node --expose-gc: leave it as it was
  if (!exposed) setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as GcFunction)({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } finally {
    if (!exposed) setFlagsFromString('--no-expose-gc');
  }
  return performance.now() - started;
}
