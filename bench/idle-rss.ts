import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { killAllChildren, ServerProcess } from './child-process';
import { compileEntries } from './compile-entries';
import { serviceEnvironment } from './production-env';

// `npx tsx bench/idle-rss.ts` (after `npm run build`): the idle RSS reading of `make bench` on its own, repeated.
// The service is started exactly as the bench starts it (the built dist/, bench/bench-server.ts, the same
// environment, a fresh SQLite file, so a first start that migrates), left alone BENCH_SETTLE seconds and read
// (VmRSS), then read again after IDLE_RSS_LATER more seconds. The full bench reads once, in a run of minutes;
// a memory change needs several readings, and this takes seconds each.

const runs = Number(process.env.IDLE_RSS_RUNS ?? 3);
const settleSeconds = Number(process.env.BENCH_SETTLE ?? 3);
const laterSeconds = Number(process.env.IDLE_RSS_LATER ?? 10);
const dist = resolve(process.env.BENCH_DIST ?? join(__dirname, '..', 'dist'));
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function once(run: number, scratch: string): Promise<void> {
  const env = serviceEnvironment(join(scratch, `idle-${run}.sqlite`), dist, false);
  const service = await ServerProcess.start('service', {
    script: join(scratch, 'bench-server.js'),
    env,
    stdout: 'ignore',
    nodeFlags: (process.env.IDLE_RSS_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    startTimeoutMs: 120_000,
  });
  try {
    await sleep(settleSeconds * 1000);
    const idle = service.memory();
    await sleep(laterSeconds * 1000);
    const later = service.memory();
    const mib = (value: number | undefined) => value?.toFixed(1) ?? 'n/a';
    process.stdout.write(
      `run ${run}: idle RSS ${mib(idle?.rssMiB)} MiB after ${settleSeconds} s, ${mib(later?.rssMiB)} MiB after ${settleSeconds + laterSeconds} s, peak ${mib(later?.peakRssMiB)} MiB\n`,
    );
  } finally {
    await service.stop(5_000);
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'koa-api-idle-rss-'));
  try {
    compileEntries(scratch);
    for (let run = 1; run <= runs; run += 1) await once(run, scratch);
  } finally {
    killAllChildren();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`idle-rss: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
