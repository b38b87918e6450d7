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
// status was the one the request should get, and RSS after the run is within 10% of RSS after warm-up.
//
// Memory method: a GC cannot be forced from outside a production process, so the warm-up runs the same
// traffic long enough for the process to reach its working size. Measured on this machine: RSS steps up
// by ~55 MiB about 20 s into the traffic, then creeps up and levels off; with a 15 s warm-up that step fell
// inside the measured run (+25-35 %), with 30 s it falls before it (+4 %). Hence 30 s by default. RSS is
// read (VmRSS) after a 2 s pause at the end of the warm-up and again after a 2 s pause at the end of the
// run, and sampled every second to show the curve's range.

const DURATION_S = setting('DURATION', 60, 5, 3_600);
const WARMUP_S = setting('WARMUP', 30, 5, 600);
const ADDRESSES = setting('ADDRESSES', 4, 1, 50);
const USERS_PER_ADDRESS = setting('USERS_PER_ADDRESS', 3, 1, 50);
const REQUEST_TIMEOUT_MS = setting('REQUEST_TIMEOUT_MS', 10_000, 1_000, 60_000);
const MAX_ACTIONS = setting('MAX_ACTIONS', 5_000_000, 1, 100_000_000);
const RSS_TOLERANCE = 0.1;

async function main(): Promise<number> {
  const dir = runDirectory('soak');
  console.log(`soak: ${DURATION_S} s after ${WARMUP_S} s warm-up, ${ADDRESSES} source addresses x ${USERS_PER_ADDRESS} users; logs in ${dir}`);
  const postgres = await PostgresCluster.create();
  const service = await ServiceProcess.start({ DATABASE_URL: postgres.url }, join(dir, 'service.log'));
  console.log(`service pid ${service.pid} on port ${service.port}, PostgreSQL on port ${postgres.port}`);

  const users = sourceAddresses(ADDRESSES).flatMap((address) => Array.from({ length: USERS_PER_ADDRESS }, () => new VirtualUser(service.port, address, REQUEST_TIMEOUT_MS)));
  const warmStats = new Stats();
  await runTraffic({ users, until: Date.now() + WARMUP_S * 1000, maxActions: MAX_ACTIONS, onRecord: (r) => warmStats.record(r) });
  await sleep(2_000);
  const rssWarm = service.rssKiB();
  console.log(`warm-up: ${warmStats.requests} requests, ${warmStats.failureCount} failures; RSS ${mib(rssWarm)} MiB`);

  const stats = new Stats();
  const samples: number[] = [];
  const sampler = setInterval(() => service.alive && samples.push(service.rssKiB()), 1_000);
  const started = Date.now();
  await runTraffic({ users, until: started + DURATION_S * 1000, maxActions: MAX_ACTIONS, onRecord: (r) => stats.record(r) });
  const elapsedS = (Date.now() - started) / 1000;
  clearInterval(sampler);
  for (const user of users) user.close();
  await sleep(2_000);
  const rssEnd = service.rssKiB();
  const growth = (rssEnd - rssWarm) / rssWarm;

  const exit = await service.terminate(30_000);
  const failures: string[] = [];
  if (warmStats.failureCount) failures.push(`${warmStats.failureCount} failures during warm-up`);
  if (stats.failureCount) failures.push(`${stats.failureCount} failures during the run`);
  if (growth > RSS_TOLERANCE) failures.push(`RSS grew ${(growth * 100).toFixed(1)}% (limit ${RSS_TOLERANCE * 100}%)`);
  if (exit.code !== 0) failures.push(`the service exited with ${exit.code ?? exit.signal} on SIGTERM`);

  console.log(`\n=== soak figures (${new Date().toISOString()}) ===`);
  console.log(stats.summary());
  console.log(`throughput ${(stats.requests / elapsedS).toFixed(0)} req/s over ${elapsedS.toFixed(1)} s`);
  console.log(`RSS after warm-up ${mib(rssWarm)} MiB, after the run ${mib(rssEnd)} MiB (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%), range during the run ${mib(Math.min(...samples))}-${mib(Math.max(...samples))} MiB`);
  console.log(`SIGTERM → exit ${exit.code} in ${exit.ms} ms`);
  if (failures.length) {
    console.log(`\nSOAK FAILED: ${failures.join('; ')}\nservice log tail:\n${service.logTail()}`);
    return 1;
  }
  console.log('\nSOAK PASSED');
  return 0;
}

runDriver(main);
