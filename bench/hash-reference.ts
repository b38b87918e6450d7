import { resolve } from 'node:path';
import type * as HashQueueModule from '../src/auth/hash-queue';
import type * as PasswordsModule from '../src/auth/passwords';
import type { HashCost } from './report';

// The argon2 reference login is measured against, timed in a process of its own that runs as the service
// does: the built code (BENCH_DIST), the image's malloc settings and node flags (GLIBC_TUNABLES, NODE_OPTIONS,
// set by the harness). Timed in the harness itself, with glibc's default arenas, the same verify moved from
// 18.5 to 28.3 ms between runs (docs/performance.md, "What a run does"). Sends its samples over IPC and exits.

const dist = resolve(process.env.BENCH_DIST ?? resolve(__dirname, '..', 'dist'));
/* eslint-disable @typescript-eslint/no-require-imports -- the built JS is loaded at run time; its types come from src */
const { PasswordHasher } = require(resolve(dist, 'auth/passwords.js')) as typeof PasswordsModule;
const { DEFAULT_HASH_CONCURRENCY } = require(resolve(dist, 'auth/hash-queue.js')) as typeof HashQueueModule;
/* eslint-enable @typescript-eslint/no-require-imports */

export interface HashSamples {
  wallMs: number[];
  cpuMs: number[];
  systemMs: number[];
  parameters: HashCost['parameters'];
}

/**
 * One argon2id verify with the auth module's parameters, `count` times, kept one per core in flight as the
 * service's hash queue runs them under the login load: each verify starts when one ends, so they end apart.
 * Started all at once and awaited together, two verifies would also free their 19 MiB together, and with one
 * malloc arena glibc gives the memory back and faults it in again for the next two: up to ~10 ms of system time
 * a verify that the service under load does not pay. A sample is the process's CPU from one verify's end to
 * the next one's, which with every core busy is one verify's CPU; the first `concurrency` ends, before the
 * queue is full, are not samples.
 */
async function timeHashes(count: number, password: string): Promise<HashSamples> {
  const hasher = new PasswordHasher();
  const hash = await hasher.hash(password);
  const samples: HashSamples = { wallMs: [], cpuMs: [], systemMs: [], parameters: { ...hasher.parameters } };
  const concurrency = DEFAULT_HASH_CONCURRENCY;
  let started = 0;
  let ended = 0;
  let lastEnd = process.cpuUsage();
  const keepBusy = async () => {
    while (started < count + concurrency) {
      started += 1;
      const startedAt = performance.now();
      if (!(await hasher.verify(hash, password))) throw new Error('argon2 verify failed on its own hash');
      const cpu = process.cpuUsage(lastEnd);
      lastEnd = process.cpuUsage();
      ended += 1;
      if (ended <= concurrency) continue;
      samples.wallMs.push(performance.now() - startedAt);
      samples.cpuMs.push((cpu.user + cpu.system) / 1000);
      samples.systemMs.push(cpu.system / 1000);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, keepBusy));
  return samples;
}

if (require.main === module) {
  timeHashes(Number(process.env.HASH_SAMPLES ?? 16), process.env.DEMO_USER_PASSWORD ?? 'reference password').then(
    (samples) => process.send!(samples, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`hash reference failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
