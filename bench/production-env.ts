import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The GLIBC_TUNABLES the production image sets (its Dockerfile's ENV), so the bench and the soak run the
 * service with the same malloc settings as production and the two cannot drift apart. See
 * docs/performance.md ("Memory") for why the image caps glibc at one malloc arena. BENCH_GLIBC_TUNABLES
 * overrides it (empty: glibc's defaults), to measure what the setting changes.
 */
export function productionMallocTunables(): string {
  if (process.env.BENCH_GLIBC_TUNABLES !== undefined) return process.env.BENCH_GLIBC_TUNABLES;
  const dockerfile = readFileSync(join(__dirname, '..', 'Dockerfile'), 'utf8');
  const value = /^\s*GLIBC_TUNABLES=(\S+)/m.exec(dockerfile)?.[1];
  if (!value) throw new Error('Dockerfile sets no GLIBC_TUNABLES: the bench cannot run with the image\'s malloc settings');
  return value;
}
