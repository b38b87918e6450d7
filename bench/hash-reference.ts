import { resolve } from 'node:path';
import type * as HashQueueModule from '../src/auth/hash-queue';
import type * as PasswordsModule from '../src/auth/passwords';
import type { HashCost } from './report';

// The argon2 reference login is measured against, timed in a process of its own that runs as the service
// does: the built code (BENCH_DIST), the image's malloc settings and node flags (GLIBC_TUNABLES, NODE_OPTIONS,
// set by the harness), so the verify costs what it costs the service (docs/performance.md, "What a run does").
// Sends its samples over IPC and exits.

const dist = resolve(process.env.BENCH_DIST ?? resolve(__dirname, '..', 'dist'));
/* eslint-disable @typescript-eslint/no-require-imports -- the built JS, loaded at run time; types from src */
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
 * Verifies a sample is the average of: at least eight, in whole turns of the cores. With one verify per core in
 * flight the cores' verifies end in turns, so a window of whole turns starts and ends at the same point of a
 * turn and holds that many verifies' work.
 */
const VERIFIES_PER_SAMPLE = DEFAULT_HASH_CONCURRENCY * Math.ceil(8 / DEFAULT_HASH_CONCURRENCY);

/**
 * One argon2id verify with the auth module's parameters, `count` samples of VERIFIES_PER_SAMPLE, from one run of
 * verifies kept one per core in flight as the service's hash queue runs them under the login load: each starts
 * when one ends. Started and awaited in batches, the verifies would free their 19 MiB together at each batch's
 * end, and with one malloc arena glibc gives the memory back and faults it in again for the next batch: ~12 ms
 * of system time a verify that the service under load does not pay (docs/performance.md, "What a run
 * does"). A sample is the process's CPU between two verifies' ends VERIFIES_PER_SAMPLE apart, over that many;
 * the first ends, before every core is busy, are not measured.
 */
async function timeHashes(count: number, password: string): Promise<HashSamples> {
  const hasher = new PasswordHasher();
  const hash = await hasher.hash(password);
  const samples: HashSamples = { wallMs: [], cpuMs: [], systemMs: [], parameters: { ...hasher.parameters } };
  const warmUp = DEFAULT_HASH_CONCURRENCY;
  // The other cores' verifies run on past the last measured end, so the last window is as full as the others.
  const total = warmUp + count * VERIFIES_PER_SAMPLE + DEFAULT_HASH_CONCURRENCY - 1;
  const ends: NodeJS.CpuUsage[] = [];
  let started = 0;
  const keepBusy = async () => {
    while (started < total) {
      started += 1;
      const startedAt = performance.now();
      if (!(await hasher.verify(hash, password))) throw new Error('argon2 verify failed on its own hash');
      ends.push(process.cpuUsage());
      if (ends.length > warmUp) samples.wallMs.push(performance.now() - startedAt);
    }
  };
  await Promise.all(Array.from({ length: DEFAULT_HASH_CONCURRENCY }, keepBusy));
  for (let sample = 0; sample < count; sample += 1) {
    const from = ends[warmUp - 1 + sample * VERIFIES_PER_SAMPLE]!;
    const to = ends[warmUp - 1 + (sample + 1) * VERIFIES_PER_SAMPLE]!;
    const system = to.system - from.system;
    samples.cpuMs.push((to.user - from.user + system) / 1000 / VERIFIES_PER_SAMPLE);
    samples.systemMs.push(system / 1000 / VERIFIES_PER_SAMPLE);
  }
  return samples;
}

if (require.main === module) {
  timeHashes(Number(process.env.HASH_SAMPLES ?? 4), process.env.DEMO_USER_PASSWORD ?? 'reference password').then(
    (samples) => process.send!(samples, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`hash reference failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
