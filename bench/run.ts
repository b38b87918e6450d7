import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { TokenService } from '../src/auth/tokens';
import { loadConfig } from '../src/config/config';
import { IDLE_RELEASE_MS, MIN_RELEASE_INTERVAL_MS } from '../src/lifecycle/idle-memory-release';
import { DEMO_USER_ID } from '../src/auth/demo-user-store';
import { BENCH_ROLE } from './bench-module';
import { killAllChildren } from './child-process';
import { compileEntries } from './compile-entries';
import { loadRun, type RunFigures } from './load';
import { serviceEnvironment } from './production-env';
import { RunLog } from './run-log';
import { checkTargets } from './targets';
import {
  PEERS,
  renderReport,
  summarise,
  type HashCost,
  type MemoryFigures,
  type RoundFigures,
  type Run,
  type ScenarioSummary,
} from './report';
import { buildScenarios, type Scenario } from './scenarios';
import { hashCost, prepare, timeHashes } from './checks';
import type { HashSamples } from './hash-reference';
import { startServers, type Servers } from './servers';
import { readSettings, type BenchSettings } from './settings';

// `make bench` / `npm run bench` (after the build): the built service in production mode and two
// references, bare Koa + @koa/router and raw node:http, each in its own child process, driven in turn by
// autocannon from this process on 127.0.0.1. Prints a table and writes bench/results/<timestamp>.json.
// See docs/performance.md.

const BENCH_DIR = __dirname;
const RESULTS_DIR = join(BENCH_DIR, 'results');
const log = (line: string) => process.stderr.write(`${line}\n`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The scenarios the peer stacks answer exactly as the service does (same JSON, same token checks). */
const PEER_SCENARIOS = new Set(['get-root', 'protected']);

const cpuRatio = (run: RunFigures, other: RunFigures) =>
  (run.serverCpuMicrosPerRequest ?? NaN) / (other.serverCpuMicrosPerRequest ?? NaN);

async function runScenario(
  scenario: Scenario,
  servers: Servers,
  settings: BenchSettings,
  runLog: RunLog,
): Promise<ScenarioSummary> {
  const options = { connections: scenario.connections, pipelining: settings.pipelining };
  const peers = PEER_SCENARIOS.has(scenario.id) ? PEERS.filter((peer) => servers[peer]) : [];
  // The peer stacks run right after the service (right before it in reversed rounds): the ratio the target
  // compares is then measured within seconds, where a slower spell of the shared host hits both alike.
  // The request this scenario is judged against runs on the service right beside it ('compared').
  const RUN_ORDER: Run[] = [
    'service',
    ...(scenario.comparedWith ? ['compared' as const] : []),
    ...peers,
    'bareKoa',
    'raw',
  ];
  // Each run's log lines are dropped after it (run-log.ts), but kept when it had errors: they explain them.
  const measure = async (run: Run, seconds: number): Promise<RunFigures> => {
    const server = servers[run === 'compared' ? 'service' : run]!;
    const request = run === 'compared' ? scenario.comparedWith!.request : scenario.request;
    const figures = await loadRun(server, request, { ...options, seconds });
    runLog.empty(figures.errors + figures.non2xx > 0);
    return figures;
  };
  if (settings.warmupSeconds > 0) {
    log(`  warm-up ${settings.warmupSeconds} s each`);
    for (const run of RUN_ORDER) await measure(run, settings.warmupSeconds);
  }
  const rounds: RoundFigures[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    // The service runs first in odd rounds and last in even ones, so drift on the machine cancels out.
    const order = round % 2 === 1 ? RUN_ORDER : [...RUN_ORDER].reverse();
    const figures: Partial<Record<Run, RunFigures>> = {};
    for (const run of order) figures[run] = await measure(run, settings.durationSeconds);
    const { service, bareKoa, raw, fastify, express, compared } = figures as Record<Run, RunFigures>;
    rounds.push({
      round,
      order,
      service,
      bareKoa,
      raw,
      fastify,
      express,
      compared,
    });
    const versus = (name: string, other: { requestsPerSecond: number } | undefined) =>
      other
        ? `, ${name} ${other.requestsPerSecond.toFixed(0)} (${(service.requestsPerSecond / other.requestsPerSecond).toFixed(2)}×)`
        : '';
    log(
      `  round ${round}/${settings.rounds}: service ${service.requestsPerSecond.toFixed(0)} req/s` +
        versus('bare Koa', bareKoa) +
        versus('raw', raw) +
        versus('Fastify', fastify) +
        versus('Express', express) +
        (compared ? `; CPU ÷ ${scenario.comparedWith!.id}'s beside it ${cpuRatio(service, compared).toFixed(2)}×` : ''),
    );
  }
  return summarise(scenario.id, scenario.title, scenario.connections, rounds);
}

/**
 * Each scenario in turn; around the logins, the argon2 reference (timed before and after them) and, once they
 * have settled, the service's RSS after logins (into `memory`).
 */
async function runScenarios(
  scenarios: Scenario[],
  servers: Servers,
  settings: BenchSettings,
  runLog: RunLog,
  memory: MemoryFigures,
  timeReference: () => Promise<HashSamples>,
): Promise<{ summaries: ScenarioSummary[]; hash: HashCost | undefined }> {
  let hash: HashCost | undefined;
  const summaries: ScenarioSummary[] = [];
  for (const scenario of scenarios) {
    const hashesBefore = scenario.id === 'login' ? await timeReference() : undefined;
    log(`bench: ${scenario.title}`);
    summaries.push(await runScenario(scenario, servers, settings, runLog));
    if (hashesBefore) {
      hash = hashCost(hashesBefore, await timeReference());
      await sleep(settings.settleSeconds * 1000);
      memory.afterLoginsRssMiB = servers.service.memory()?.rssMiB;
      log(`  RSS after logins and ${settings.settleSeconds} s: ${memory.afterLoginsRssMiB?.toFixed(1) ?? 'n/a'} MiB`);
    }
  }
  return { summaries, hash };
}

async function main(): Promise<number> {
  const settings = readSettings();
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const logFile = join(RESULTS_DIR, `${stamp}-service.log`);
  const runLog = new RunLog(logFile);
  const scratch = mkdtempSync(join(tmpdir(), 'koa-api-bench-'));
  // The build to measure: dist/ (what `make bench` just built), or another one named by BENCH_DIST.
  const dist = resolve(process.env.BENCH_DIST ?? join(BENCH_DIR, '..', 'dist'));
  const env = serviceEnvironment(join(scratch, 'bench.sqlite'), dist, settings.metrics);
  const notes: string[] = [];
  try {
    const profileDir = join(RESULTS_DIR, 'profiles');
    if (settings.profile) mkdirSync(profileDir, { recursive: true });
    log(
      `bench: rounds ${settings.rounds} × ${settings.durationSeconds} s, warm-up ${settings.warmupSeconds} s, ${settings.connections} connections (login ${settings.loginConnections}), pipelining ${settings.pipelining}`,
    );
    log(`bench: service log → ${relative(process.cwd(), logFile)}`);
    log(`bench: metrics ${settings.metrics ? 'on' : 'off'} (BENCH_METRICS)`);
    compileEntries(scratch);
    const jwtSettings = loadConfig(env).jwt;
    const profileFlags = settings.profile
      ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=service-${stamp}.cpuprofile`]
      : [];
    const servers = await startServers(scratch, env, jwtSettings, runLog.fd, [...profileFlags, ...settings.nodeFlags]);
    const { service, bareKoa, raw } = servers;
    if (settings.nodeFlags.length > 0)
      notes.push(`the service ran with extra node flags (BENCH_NODE_FLAGS): ${settings.nodeFlags.join(' ')}`);
    if (!servers.fastify)
      notes.push(
        'the peer stacks are not installed (npm ci --prefix bench/peers, which make bench runs): not measured',
      );
    // Idle: after start-up (which hashes the demo password and the dummy) has settled, before any request.
    await sleep(settings.settleSeconds * 1000);
    const memory: MemoryFigures = {
      idleRssMiB: service.memory()?.rssMiB,
      peakRssMiB: undefined,
      afterLoginsRssMiB: undefined,
    };
    log(
      `bench: service idle RSS ${memory.idleRssMiB?.toFixed(1) ?? 'n/a'} MiB (bare Koa ${bareKoa.memory()?.rssMiB.toFixed(1) ?? 'n/a'} MiB)`,
    );

    // The token the bench module accepts, minted with the secrets the service was given: for the demo user,
    // who exists in the service's (demo) user store with BENCH_ROLE, at its first session version.
    const tokens = new TokenService(jwtSettings);
    const accessToken = tokens.signAccessToken({ id: DEMO_USER_ID, role: BENCH_ROLE, sessionVersion: 0 });
    const prepared = await prepare(servers, accessToken);
    // Those 64 sign-ins are a burst: once it is over the service gives back what it grew, at most once per
    // MIN_RELEASE_INTERVAL_MS (idle-memory-release.ts). Let that collection run now rather than inside a measured
    // round: it drops the optimised request path, and the round would pay for compiling it again.
    if (prepared.refreshCookies) await sleep(MIN_RELEASE_INTERVAL_MS + 3 * IDLE_RELEASE_MS);
    const { refreshCookies } = prepared;
    notes.push(...prepared.notes);
    for (const note of notes) log(`bench: NOTE ${note}`);
    runLog.keepHead();

    const all = buildScenarios({
      accessToken,
      refreshCookies,
      connections: settings.connections,
      loginConnections: settings.loginConnections,
    });
    const scenarios = settings.scenarios ? all.filter((scenario) => settings.scenarios!.includes(scenario.id)) : all;
    if (scenarios.length === 0) throw new Error(`BENCH_SCENARIOS matches none of: ${all.map((s) => s.id).join(', ')}`);
    const { summaries, hash } = await runScenarios(scenarios, servers, settings, runLog, memory, () =>
      timeHashes(scratch, env),
    );
    memory.peakRssMiB = service.memory()?.peakRssMiB;
    await Promise.all([
      service.stop(15_000),
      raw.stop(5_000),
      bareKoa.stop(5_000),
      ...PEERS.map((peer) => servers[peer]?.stop(5_000)),
    ]);

    const checks = checkTargets(summaries, hash, memory);
    const report = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { node: process.version, cpus: cpus().length, platform: `${process.platform}-${process.arch}` },
      settings,
      build: relative(process.cwd(), dist) || dist,
      notes,
      hash,
      memory,
      scenarios: summaries,
      targets: checks,
    };
    const reportFile = join(RESULTS_DIR, `${stamp}.json`);
    writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\n${renderReport(summaries, checks, { memory, hash })}`);
    process.stdout.write(`metrics: ${settings.metrics ? 'on' : 'off'} (BENCH_METRICS)\n`);
    process.stdout.write(
      `report: ${relative(process.cwd(), reportFile)}\nservice log: ${relative(process.cwd(), logFile)}\n`,
    );
    if (settings.profile)
      process.stdout.write(
        `profile: ${relative(process.cwd(), profileDir)}/service-${stamp}.cpuprofile (read it with: npx tsx bench/profile-top.ts <file>)\n`,
      );
    for (const note of notes) process.stdout.write(`NOTE: ${note}\n`);
    // Missed speed targets are figures to read, not a failure; errors under load are a failure.
    return summaries.some((summary) => summary.service.errors + summary.service.non2xx > 0) ? 1 : 0;
  } finally {
    killAllChildren();
    rmSync(scratch, { recursive: true, force: true });
    runLog.close();
  }
}

const settingsForDeadline = (() => {
  try {
    return readSettings();
  } catch (error) {
    log(`bench: ${(error as Error).message}`);
    process.exit(2);
  }
})();
// The whole run is bounded: past the deadline, kill the servers and fail.
const deadline = setTimeout(() => {
  log(`bench: still running after ${settingsForDeadline.maxRunSeconds} s: giving up`);
  killAllChildren();
  process.exit(3);
}, settingsForDeadline.maxRunSeconds * 1000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}
process.once('exit', killAllChildren);

main().then(
  (code) => {
    clearTimeout(deadline);
    process.exitCode = code;
  },
  (error: unknown) => {
    clearTimeout(deadline);
    log(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    killAllChildren();
    process.exitCode = 1;
  },
);
