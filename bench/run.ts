import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { PasswordHasher } from '../src/auth/passwords';
import { TokenService } from '../src/auth/tokens';
import { loadConfig } from '../src/config/config';
import { IDLE_RELEASE_MS, MIN_RELEASE_INTERVAL_MS } from '../src/lifecycle/idle-memory-release';
import { DEMO_USER_ID } from '../src/auth/demo-user-store';
import { BENCH_ROLE } from './bench-module';
import { killAllChildren, ServerProcess } from './child-process';
import { compileEntries } from './compile-entries';
import { loadRun, probe, type LoadRequest } from './load';
import { serviceEnvironment } from './production-env';
import { RunLog } from './run-log';
import {
  checkTargets,
  median,
  PEERS,
  renderReport,
  summarise,
  type HashCost,
  type MemoryFigures,
  type PeerName,
  type RoundFigures,
  type ServerName,
  type ScenarioSummary,
} from './report';
import { buildScenarios, DEMO_CREDENTIALS, type Scenario } from './scenarios';
import { readSettings, type BenchSettings } from './settings';

// `make bench` / `npm run bench` (after the build): the built service in production mode and two
// references, bare Koa + @koa/router and raw node:http, each in its own child process, driven in turn by
// autocannon from this process on 127.0.0.1. Prints a table and writes bench/results/<timestamp>.json.
// See docs/performance.md.

const BENCH_DIR = __dirname;
const RESULTS_DIR = join(BENCH_DIR, 'results');
const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The peer stacks (bench/peers/), when installed: each in its own child process, production mode, logging
 * to the service's log file as the service does, verifying the same tokens (secret, issuer, audience).
 */
async function startPeers(
  env: NodeJS.ProcessEnv,
  jwt: { issuer: string; audience: string },
  logFd: number,
): Promise<Partial<Record<PeerName, ServerProcess>>> {
  const peersDir = join(BENCH_DIR, 'peers');
  if (!existsSync(join(peersDir, 'node_modules'))) return {};
  const started = await Promise.all(
    PEERS.map((peer) =>
      ServerProcess.start(peer, {
        script: join(peersDir, `${peer}-server.js`),
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          JWT_SECRET: env.JWT_SECRET,
          JWT_ISSUER: jwt.issuer,
          JWT_AUDIENCE: jwt.audience,
        },
        stdout: logFd,
        startTimeoutMs: 30_000,
      }),
    ),
  );
  return Object.fromEntries(PEERS.map((peer, index) => [peer, started[index]]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Servers = Record<'service' | 'bareKoa' | 'raw', ServerProcess> & Partial<Record<PeerName, ServerProcess>>;

/** Verifies timed for the argon2 reference: their median is the figure. */
const HASH_SAMPLES = 16;

/** What one argon2id verify costs on its own, with the auth module's parameters: login's floor. */
async function measureHash(): Promise<HashCost> {
  const hasher = new PasswordHasher();
  const hash = await hasher.hash(DEMO_CREDENTIALS.password);
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < HASH_SAMPLES; i++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    if (!(await hasher.verify(hash, DEMO_CREDENTIALS.password)))
      throw new Error('argon2 verify failed on its own hash');
    walls.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuBefore);
    cpus.push((cpu.user + cpu.system) / 1000);
  }
  return { wallMs: median(walls), cpuMs: median(cpus), parameters: { ...hasher.parameters } };
}

async function expectOk(name: string, port: number, request: LoadRequest): Promise<{ body: string; headers: Headers }> {
  const answer = await probe(port, request);
  if (answer.status !== 200)
    throw new Error(
      `${name}: ${request.method} ${request.path} answered ${answer.status}: ${answer.body.slice(0, 300)}`,
    );
  return answer;
}

/** Sessions the refresh scenario goes through, one per request in turn: its lookups are of different tokens, as a crowd's are. */
const REFRESH_SESSIONS = 64;

/** Checks every scenario answers 200 before any load, and collects the refresh cookies of REFRESH_SESSIONS logins. */
async function prepare(
  servers: Servers,
  accessToken: string,
): Promise<{ refreshCookies: string[] | undefined; notes: string[] }> {
  const { service, bareKoa, raw } = servers;
  const notes: string[] = [];
  const root = { method: 'GET', path: '/' } as const;
  const fromService = await expectOk('service', service.port, root);
  for (const [name, server] of [
    ['raw server', raw],
    ['bare Koa', bareKoa],
  ] as const) {
    const reference = await expectOk(name, server.port, root);
    if (fromService.body !== reference.body)
      throw new Error(`${name} body differs from the service's GET /: ${fromService.body} vs ${reference.body}`);
  }
  const guarded = {
    method: 'GET',
    path: '/api/bench/protected',
    headers: { authorization: `Bearer ${accessToken}` },
  } as const;
  const protectedBody = (await expectOk('service', service.port, guarded)).body;
  const koaProtected = (await expectOk('bare Koa', bareKoa.port, guarded)).body;
  if (protectedBody !== koaProtected)
    throw new Error(`bare Koa protected body differs from the service's: ${protectedBody} vs ${koaProtected}`);
  for (const peer of PEERS) {
    const server = servers[peer];
    if (!server) continue;
    for (const [request, expected] of [
      [root, fromService.body],
      [guarded, protectedBody],
    ] as const) {
      const body = (await expectOk(peer, server.port, request)).body;
      if (body !== expected) throw new Error(`${peer}: ${request.path} answers ${body}, the service ${expected}`);
    }
    // The same token checks: a token of another type is refused by the peer as by the service.
    const refused = await probe(server.port, {
      ...guarded,
      headers: { authorization: `Bearer ${accessToken.split('.').slice(0, 2).join('.')}.x` },
    });
    if (refused.status !== 401) throw new Error(`${peer}: a tampered token answered ${refused.status}`);
  }

  const logIn = () =>
    probe(service.port, {
      method: 'POST',
      path: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_CREDENTIALS),
    });
  const login = await logIn();
  if (login.status === 404) {
    notes.push(
      'POST /api/auth/login answered 404: the auth module is not mounted, login and refresh were not measured',
    );
    return { refreshCookies: undefined, notes };
  }
  const refreshCookies = [refreshCookieOf(login)];
  while (refreshCookies.length < REFRESH_SESSIONS) {
    const logins = Array.from({ length: Math.min(8, REFRESH_SESSIONS - refreshCookies.length) }, logIn);
    refreshCookies.push(...(await Promise.all(logins)).map(refreshCookieOf));
  }
  for (const cookie of [refreshCookies[0], refreshCookies[REFRESH_SESSIONS - 1]]) {
    await expectOk('service', service.port, { method: 'POST', path: '/api/auth/refresh', headers: { cookie } });
  }
  return { refreshCookies, notes };
}

/** `refreshToken=…` from a login's answer. */
function refreshCookieOf(login: { status: number; body: string; headers: Headers }): string {
  if (login.status !== 200) throw new Error(`service: login answered ${login.status}: ${login.body.slice(0, 300)}`);
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith('refreshToken='));
  if (!cookie) throw new Error('service: login set no refreshToken cookie');
  return cookie.split(';')[0];
}

/** The scenarios the peer stacks answer exactly as the service does (same JSON, same token checks). */
const PEER_SCENARIOS = new Set(['get-root', 'protected']);

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
  const RUN_ORDER: ServerName[] = ['service', ...peers, 'bareKoa', 'raw'];
  if (settings.warmupSeconds > 0) {
    log(`  warm-up ${settings.warmupSeconds} s each`);
    for (const name of RUN_ORDER) {
      await loadRun(servers[name]!, scenario.request, { ...options, seconds: settings.warmupSeconds });
      runLog.empty();
    }
  }
  const rounds: RoundFigures[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    // The service runs first in odd rounds and last in even ones, so drift on the machine cancels out.
    const order = round % 2 === 1 ? RUN_ORDER : [...RUN_ORDER].reverse();
    const figures: Partial<Record<ServerName, Awaited<ReturnType<typeof loadRun>>>> = {};
    for (const name of order) {
      figures[name] = await loadRun(servers[name]!, scenario.request, {
        ...options,
        seconds: settings.durationSeconds,
      });
      runLog.empty();
    }
    const { service, bareKoa, raw, fastify, express } = figures as Record<
      ServerName,
      Awaited<ReturnType<typeof loadRun>>
    >;
    rounds.push({ round, order, service, bareKoa, raw, fastify, express });
    const versus = (name: string, other: { requestsPerSecond: number } | undefined) =>
      other
        ? `, ${name} ${other.requestsPerSecond.toFixed(0)} (${(service.requestsPerSecond / other.requestsPerSecond).toFixed(2)}×)`
        : '';
    log(
      `  round ${round}/${settings.rounds}: service ${service.requestsPerSecond.toFixed(0)} req/s` +
        versus('bare Koa', bareKoa) +
        versus('raw', raw) +
        versus('Fastify', fastify) +
        versus('Express', express),
    );
  }
  return summarise(scenario.id, scenario.title, scenario.connections, rounds);
}

async function main(): Promise<number> {
  const settings = readSettings();
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'koa-api-bench-'));
  const logFile = join(RESULTS_DIR, `${stamp}-service.log`);
  const runLog = new RunLog(logFile);
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
    const [service, raw, bareKoa] = await Promise.all([
      ServerProcess.start('service', {
        script: join(scratch, 'bench-server.js'),
        env,
        stdout: runLog.fd,
        nodeFlags: [
          ...(settings.profile
            ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=service-${stamp}.cpuprofile`]
            : []),
          ...settings.nodeFlags,
        ],
        startTimeoutMs: 120_000, // start-up checks the secrets (CPU-bound): minutes on a machine shared with other jobs
      }),
      ServerProcess.start('raw server', {
        script: join(scratch, 'raw-server.js'),
        env: { PATH: process.env.PATH },
        stdout: 'ignore',
        startTimeoutMs: 30_000,
      }),
      ServerProcess.start('bare Koa', {
        script: join(scratch, 'bare-koa-server.js'),
        // NODE_PATH: the compiled entry lives in the scratch directory, its packages in the repository.
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          NODE_PATH: join(BENCH_DIR, '..', 'node_modules'),
          JWT_SECRET: env.JWT_SECRET,
          JWT_ISSUER: jwtSettings.issuer,
          JWT_AUDIENCE: jwtSettings.audience,
        },
        stdout: 'ignore',
        startTimeoutMs: 30_000,
      }),
    ]);
    const servers: Servers = { service, bareKoa, raw, ...(await startPeers(env, jwtSettings, runLog.fd)) };
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
    await sleep(MIN_RELEASE_INTERVAL_MS + 3 * IDLE_RELEASE_MS);
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
    let hash: HashCost | undefined;
    const summaries: ScenarioSummary[] = [];
    for (const scenario of scenarios) {
      // Timed right before the logins it is the floor of, so a slower or quicker spell of the host meets both.
      if (scenario.id === 'login') hash = await measureHash();
      log(`bench: ${scenario.title}`);
      summaries.push(await runScenario(scenario, servers, settings, runLog));
      if (scenario.id === 'login') {
        await sleep(settings.settleSeconds * 1000);
        memory.afterLoginsRssMiB = service.memory()?.rssMiB;
        log(`  RSS after logins and ${settings.settleSeconds} s: ${memory.afterLoginsRssMiB?.toFixed(1) ?? 'n/a'} MiB`);
      }
    }
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
    runLog.close();
    rmSync(scratch, { recursive: true, force: true });
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
