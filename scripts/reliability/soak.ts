import { join } from 'node:path';
import { sleep, runDriver } from './lib/children';
import { PostgresCluster } from './lib/postgres';
import { ServiceProcess } from './lib/service';
import { mib, runDirectory, setting } from './lib/settings';
import { Stats } from './lib/stats';
import { runTraffic, sourceAddresses, VirtualUser } from './lib/traffic';

// Soak: the production build on a PostgreSQL started here, mixed traffic (see lib/traffic.ts) from several
// loopback source addresses for a bounded time. Passes when nothing was a 5xx, nothing went unanswered
// (a timeout counts as unanswered), every answer was a well-formed envelope or the documented 204, every
// status was the one the request should get, and memory in the last minute of the run is within 10% of
// memory in the first minute, both for RSS and for the JS heap in use after a full GC.
//
// Memory method: the warm-up runs the same traffic long enough for the process to reach its working size
// (measured on this machine: RSS steps up by ~55 MiB about 20 s into the traffic, then levels off; hence
// 30 s). During the run, every MEMORY_SAMPLE_S seconds the soak's probe (lib/gc-probe.cjs, preloaded with
// --expose-gc into the soak's server only) runs a memory-reducing full GC in the service and reports
// heapUsed and RSS. (After an ordinary GC RSS still climbs for minutes: V8 grows its young generation to
// its maximum under load, ~14 -> ~52 MiB committed here, which is sizing, not a leak.)
// The medians of the samples in the first and in the last window (a minute, or a third of a shorter run)
// are compared: a leak shows as heap that a full GC cannot free, growing from one window to the next.

const DURATION_S = setting('DURATION', 60, 5, 3_600);
const WARMUP_S = setting('WARMUP', 30, 5, 600);
const ADDRESSES = setting('ADDRESSES', 4, 1, 50);
const USERS_PER_ADDRESS = setting('USERS_PER_ADDRESS', 3, 1, 50);
const REQUEST_TIMEOUT_MS = setting('REQUEST_TIMEOUT_MS', 10_000, 1_000, 60_000);
const MAX_ACTIONS = setting('MAX_ACTIONS', 5_000_000, 1, 100_000_000);
const MEMORY_SAMPLE_S = setting('MEMORY_SAMPLE_S', 5, 1, 60);
const MEMORY_TOLERANCE = 0.1;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

interface MemorySample {
  atS: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  spaces: Record<string, number>;
}

async function main(): Promise<number> {
  const dir = runDirectory('soak');
  console.log(
    `soak: ${DURATION_S} s after ${WARMUP_S} s warm-up, ${ADDRESSES} source addresses x ${USERS_PER_ADDRESS} users; logs in ${dir}`,
  );
  const postgres = await PostgresCluster.create();
  const service = await ServiceProcess.start({ DATABASE_URL: postgres.url }, join(dir, 'service.log'), {
    measurable: true,
  });
  console.log(`service pid ${service.pid} on port ${service.port}, PostgreSQL on port ${postgres.port}`);

  const users = sourceAddresses(ADDRESSES).flatMap((address) =>
    Array.from({ length: USERS_PER_ADDRESS }, () => new VirtualUser(service.port, address, REQUEST_TIMEOUT_MS)),
  );
  const warmStats = new Stats();
  await runTraffic({
    users,
    until: Date.now() + WARMUP_S * 1000,
    maxActions: MAX_ACTIONS,
    onRecord: (r) => warmStats.record(r),
  });
  await sleep(2_000);
  const rssWarm = service.rssKiB();
  console.log(`warm-up: ${warmStats.requests} requests, ${warmStats.failureCount} failures; RSS ${mib(rssWarm)} MiB`);

  const stats = new Stats();
  const samples: number[] = [];
  const sampler = setInterval(() => service.alive && samples.push(service.rssKiB()), 1_000);
  const started = Date.now();
  const memory: MemorySample[] = [];
  const sampleMemory = async () => {
    const measured = await service.measureAfterGc();
    memory.push({
      atS: (Date.now() - started) / 1000,
      rss: measured.rss,
      heapUsed: measured.heapUsed,
      heapTotal: measured.heapTotal,
      external: measured.external,
      spaces: measured.spaces,
    });
  };
  await sampleMemory();
  const gcSampler = setInterval(() => void sampleMemory().catch(() => undefined), MEMORY_SAMPLE_S * 1000);
  await runTraffic({
    users,
    until: started + DURATION_S * 1000,
    maxActions: MAX_ACTIONS,
    onRecord: (r) => stats.record(r),
  });
  clearInterval(gcSampler);
  await sampleMemory();
  const elapsedS = (Date.now() - started) / 1000;
  clearInterval(sampler);
  for (const user of users) user.close();
  await sleep(2_000);
  const rssEnd = service.rssKiB();
  const growth = (rssEnd - rssWarm) / rssWarm;

  // First and last window: a minute each, or a third of a run shorter than three minutes.
  const windowS = Math.min(60, elapsedS / 3);
  const first = memory.filter((sample) => sample.atS <= windowS);
  const last = memory.filter((sample) => sample.atS >= elapsedS - windowS);
  const compare = (pick: (sample: MemorySample) => number) => {
    const [before, after] = [median(first.map(pick)), median(last.map(pick))];
    return { before, after, growth: (after - before) / before };
  };
  const rssWindows = compare((sample) => sample.rss);
  const heapWindows = compare((sample) => sample.heapUsed);
  // Not limits, but where RSS went: the V8 heap's reserved size, and memory outside it (buffers, native).
  const heapTotalWindows = compare((sample) => sample.heapTotal);
  const outsideHeapWindows = compare((sample) => sample.rss - sample.heapTotal);
  const spaceNames = Object.keys(memory[0]?.spaces ?? {});
  const spaceGrowth = spaceNames
    .map((name) => ({ name, ...compare((sample) => sample.spaces[name] ?? 0) }))
    .filter((space) => Math.abs(space.after - space.before) >= 1_048_576);

  const exit = await service.terminate(30_000);
  const failures: string[] = [];
  if (warmStats.failureCount) failures.push(`${warmStats.failureCount} failures during warm-up`);
  if (stats.failureCount) failures.push(`${stats.failureCount} failures during the run`);
  const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
  if (rssWindows.growth > MEMORY_TOLERANCE)
    failures.push(
      `RSS grew ${percent(rssWindows.growth)} from the first to the last window (limit ${MEMORY_TOLERANCE * 100}%)`,
    );
  if (heapWindows.growth > MEMORY_TOLERANCE)
    failures.push(
      `heap after GC grew ${percent(heapWindows.growth)} from the first to the last window (limit ${MEMORY_TOLERANCE * 100}%)`,
    );
  if (exit.code !== 0) failures.push(`the service exited with ${exit.code ?? exit.signal} on SIGTERM`);

  console.log(`\n=== soak figures (${new Date().toISOString()}) ===`);
  console.log(stats.summary());
  console.log(`throughput ${(stats.requests / elapsedS).toFixed(0)} req/s over ${elapsedS.toFixed(1)} s`);
  console.log(
    `RSS after warm-up ${mib(rssWarm)} MiB, after the run ${mib(rssEnd)} MiB (${percent(growth)}), range during the run ${mib(Math.min(...samples))}-${mib(Math.max(...samples))} MiB`,
  );
  const inMiB = (bytes: number) => (bytes / 1_048_576).toFixed(1);
  console.log(
    `memory after a full GC, median of the first vs the last ${windowS.toFixed(0)} s (${first.length} / ${last.length} samples every ${MEMORY_SAMPLE_S} s):` +
      ` RSS ${inMiB(rssWindows.before)} -> ${inMiB(rssWindows.after)} MiB (${percent(rssWindows.growth)}),` +
      ` heapUsed ${inMiB(heapWindows.before)} -> ${inMiB(heapWindows.after)} MiB (${percent(heapWindows.growth)}); limit +${MEMORY_TOLERANCE * 100}% each`,
  );
  console.log(
    `  of RSS: V8 heap reserved ${inMiB(heapTotalWindows.before)} -> ${inMiB(heapTotalWindows.after)} MiB,` +
      ` outside the V8 heap (code, buffers, native, malloc) ${inMiB(outsideHeapWindows.before)} -> ${inMiB(outsideHeapWindows.after)} MiB`,
  );
  const spaces = spaceGrowth.map((space) => `${space.name} ${inMiB(space.before)} -> ${inMiB(space.after)}`).join(', ');
  console.log(`  V8 spaces that changed by 1 MiB or more (committed, MiB): ${spaces || 'none'}`);
  console.log(`SIGTERM → exit ${exit.code} in ${exit.ms} ms`);
  if (failures.length) {
    console.log(`\nSOAK FAILED: ${failures.join('; ')}\nservice log tail:\n${service.logTail()}`);
    return 1;
  }
  console.log('\nSOAK PASSED');
  return 0;
}

runDriver(main);
