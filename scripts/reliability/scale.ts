import { resolve } from 'node:path';
import { runDriver, sleep } from './lib/children';
import { ComposeStack, haproxyStats, secret, serverStates, waitFor } from './lib/compose';
import { freePort } from './lib/free-port';
import { refreshCookieFrom, send, type Outcome } from './lib/http';
import { setting } from './lib/settings';
import { Stats } from './lib/stats';
import { DEMO, sourceAddresses, VirtualUser, type ActionName, type Record_ } from './lib/traffic';

// Three replicas behind HAProxy (docker-compose.scale.yml), PostgreSQL and Redis, on the stand-in or
// official images. Two checks:
//  1. the auth rate limit holds across replicas: from one client, attempts 1-10 succeed and every later one
//     is 429 on every replica (the request log of each replica shows which one answered), also with a
//     forged X-Forwarded-For;
//  2. a rolling restart loses nothing: steady traffic (logins, refreshes, logouts with the bearer token —
//     the service's authenticated route —, hostile requests, GET /) runs through the balancer while each
//     replica in turn gets SIGTERM (`docker stop`), exits, starts again and is back in rotation before the
//     next. Passes when no request fails (no 5xx, no connection error, no unexpected status), every refresh
//     cookie issued before the restarts still works after them, every replica exited 0 and HAProxy took
//     it out of rotation before it closed its listener.
// The second check runs with AUTH_RATE_LIMIT_MAX=1e9: through Docker's port publishing every client of the
// balancer has the same address, and the traffic logs in and refreshes thousands of times.

const FILE = resolve(__dirname, '../../docker-compose.scale.yml');
const BACKEND = 'replicas';
const REPLICAS = ['app1', 'app2', 'app3'];
const USERS = setting('SCALE_USERS', 8, 1, 50);
const SESSIONS_BEFORE = setting('SCALE_SESSIONS', 12, 1, 200);
const SETTLE_MS = setting('SCALE_SETTLE_SECONDS', 2, 0, 60) * 1000;
const BOUND_S = setting('SCALE_MAX_SECONDS', 600, 60, 1800);
const LIMIT = 10;
const JSON_TYPE = { 'content-type': 'application/json' };

/** The traffic's mix (lib/traffic's actions): no readiness probes, which a draining replica answers 503 by design. */
const MIX: [ActionName, number][] = [
  ['home', 6],
  ['login', 2],
  ['refresh', 10],
  ['logout', 2],
  ['me', 6],
  ['badToken', 2],
  ['protectedNoToken', 1],
  ['notFound', 1],
  ['invalidBody', 1],
];
const MIX_TOTAL = MIX.reduce((sum, [, weight]) => sum + weight, 0);
function pick(): ActionName {
  let roll = Math.random() * MIX_TOTAL;
  for (const [name, weight] of MIX) if ((roll -= weight) < 0) return name;
  return 'home';
}

interface Window {
  name: string;
  start: number;
  end: number;
  stats: Stats;
}

const login = (port: number, requestId: string, headers: Record<string, string> = {}): Promise<Outcome> =>
  send(
    { port },
    {
      method: 'POST',
      path: '/api/auth/login',
      headers: { ...JSON_TYPE, ...headers, 'x-request-id': requestId },
      body: JSON.stringify(DEMO),
    },
    10_000,
  );

/** Which replica logged each request id (the request log line carries it). */
async function answeredBy(stack: ComposeStack): Promise<Map<string, string>> {
  const byId = new Map<string, string>();
  for (const service of REPLICAS) {
    const logs = await stack.docker(['logs', await stack.containerId(service)]);
    for (const match of logs.matchAll(/"reqId":"(scale-[^"]+)"/g)) byId.set(match[1], service);
  }
  return byId;
}

async function waitAllUp(statsPort: number): Promise<number> {
  return waitFor('all replicas UP in HAProxy', 180_000, async () => {
    const states = await serverStates(statsPort, BACKEND);
    return REPLICAS.every((name) => states.get(name) === 'UP');
  });
}

async function rateLimitCheck(stack: ComposeStack, lbPort: number): Promise<string[]> {
  const failures: string[] = [];
  const run = `scale-rl-${Date.now()}`;
  const outcomes: { id: string; outcome: Outcome }[] = [];
  // Sequential attempts on fresh connections: round-robin sends consecutive ones to different replicas.
  for (let i = 1; i <= LIMIT + 3; i += 1)
    outcomes.push({ id: `${run}-${i}`, outcome: await login(lbPort, `${run}-${i}`) });
  const forged = {
    id: `${run}-forged`,
    outcome: await login(lbPort, `${run}-forged`, { 'x-forwarded-for': '203.0.113.7' }),
  };
  const byId = await answeredBy(stack);
  const admittedBy = new Set<string>();
  const refusedBy = new Set<string>();
  outcomes.forEach(({ id, outcome }, index) => {
    const attempt = index + 1;
    const want = attempt <= LIMIT ? 200 : 429;
    if (outcome.status !== want)
      failures.push(`rate limit: attempt ${attempt} answered ${outcome.status ?? outcome.error}, expected ${want}`);
    if (want === 429 && !outcome.headers['retry-after'])
      failures.push(`rate limit: attempt ${attempt} has no Retry-After`);
    (attempt <= LIMIT ? admittedBy : refusedBy).add(byId.get(id) ?? '?');
  });
  if (forged.outcome.status !== 429)
    failures.push(
      `rate limit: a forged X-Forwarded-For got ${forged.outcome.status ?? forged.outcome.error}, expected 429`,
    );
  if (admittedBy.size < 2)
    failures.push(`rate limit: the admitted attempts reached only ${[...admittedBy].join(', ')}`);
  if (REPLICAS.some((name) => !refusedBy.has(name)))
    failures.push(`rate limit: 429 seen from ${[...refusedBy].join(', ')} only, expected every replica`);
  console.log(
    `rate limit (AUTH_RATE_LIMIT_MAX=${LIMIT}): attempts ${outcomes.map(({ id, outcome }) => `${outcome.status ?? outcome.error}@${byId.get(id) ?? '?'}`).join(' ')}; ` +
      `forged X-Forwarded-For ${forged.outcome.status ?? forged.outcome.error}@${byId.get(forged.id) ?? '?'}`,
  );
  return failures;
}

async function main(): Promise<number> {
  const bound = setTimeout(() => {
    console.error(`SCALE TEST FAILED: still running after ${BOUND_S} s`);
    process.exit(1); // the exit handlers remove the stack
  }, BOUND_S * 1000);
  bound.unref();
  const started = Date.now();
  const [lbPort, statsPort] = [await freePort(), await freePort()];
  const stack = new ComposeStack(FILE, `scale${process.pid}`, {
    APP_IMAGE: process.env.APP_IMAGE || 'koa-api-service:local',
    JWT_SECRET: secret(),
    REFRESH_TOKEN_SECRET: secret(),
    POSTGRES_PASSWORD: secret(),
    LB_PORT: String(lbPort),
    LB_STATS_PORT: String(statsPort),
    AUTH_RATE_LIMIT_MAX: String(LIMIT),
    LOG_LEVEL: 'info', // the request log says which replica answered
  });
  console.log(
    `scale: ${stack.client}, project ${stack.project}, balancer 127.0.0.1:${lbPort}, stats 127.0.0.1:${statsPort}/stats`,
  );

  await stack.compose(['up', '-d', '--no-build']);
  console.log(`stack up, all replicas UP in HAProxy after ${await waitAllUp(statsPort)} ms more`);
  await stack.compose([
    'exec',
    '-T',
    'app1',
    'node',
    'dist/cli/user-create.js',
    '--email',
    DEMO.email,
    '--password',
    DEMO.password,
  ]);
  const failures = await rateLimitCheck(stack, lbPort);

  stack.setEnv({ AUTH_RATE_LIMIT_MAX: '1000000000', USER_RATE_LIMIT_MAX: '1000000000' });
  await stack.compose(['up', '-d', '--no-build']); // recreates the replicas with the new setting
  await waitAllUp(statsPort);

  // Sessions opened before any restart: their refresh cookies must all work once every replica has restarted.
  const cookies: string[] = [];
  for (let i = 0; i < SESSIONS_BEFORE; i += 1) {
    const cookie = refreshCookieFrom((await login(lbPort, `scale-session-${i}`)).headers);
    if (cookie) cookies.push(cookie);
  }
  if (cookies.length !== SESSIONS_BEFORE)
    failures.push(`only ${cookies.length} of ${SESSIONS_BEFORE} sessions opened before the restarts`);

  const windows: Window[] = [];
  const open = (name: string) => windows.push({ name, start: Date.now(), end: Infinity, stats: new Stats() });
  const close = () => (windows[windows.length - 1].end = Date.now());
  const total = new Stats();
  const onRecord = (record: Record_) => {
    total.record(record);
    windows
      .findLast((w) => record.outcome.startedAt >= w.start && record.outcome.startedAt < w.end)
      ?.stats.record(record);
  };
  let stopped = false;
  const users = sourceAddresses(USERS).map((address) => new VirtualUser(lbPort, address, 10_000));
  // Each user has signed in before, one after the other, as returning users have: they hold the login-device
  // cookie. (Docker's port proxy shows every one of them to HAProxy as the bridge gateway, one address: first
  // logins all at once would be the "at most five checked at once per account and address" case of
  // docs/security.md, which a real deployment's distinct clients do not meet.)
  for (const user of users) {
    const record = await user.login();
    if (record.outcome.status !== 200)
      failures.push(`warm-up login answered ${record.outcome.status ?? record.outcome.error}`);
  }
  const trafficUntil = Date.now() + (BOUND_S - 60) * 1000;
  const traffic = Promise.all(
    users.map(async (user) => {
      for (let i = 0; i < 1_000_000 && !stopped && Date.now() < trafficUntil; i += 1)
        for (const record of await user.step(pick())) onRecord(record);
    }),
  );

  open('before');
  await sleep(SETTLE_MS + 1_000);
  const restarts: {
    service: string;
    outAfter: number;
    exitCode: string;
    stopMs: number;
    upMs: number;
    window: Window;
  }[] = [];
  for (const service of REPLICAS) {
    close();
    open(`restart ${service}`);
    const id = await stack.containerId(service);
    const t0 = Date.now();
    let outAfter = -1;
    const watching = (async () => {
      while (outAfter < 0 && Date.now() - t0 < 30_000) {
        const state = (await serverStates(statsPort, BACKEND).catch(() => new Map<string, string>())).get(service);
        if (state && !state.startsWith('UP')) outAfter = Date.now() - t0;
        else await sleep(100);
      }
    })();
    await stack.docker(['stop', '-t', '20', id]); // SIGTERM (the image's STOPSIGNAL); SIGKILL only after 20 s
    const stopMs = Date.now() - t0;
    await watching;
    const exitCode = await stack.inspect(id, '{{.State.ExitCode}}');
    await stack.docker(['start', id]);
    const upMs = await waitFor(
      `${service} UP in HAProxy`,
      120_000,
      async () => (await serverStates(statsPort, BACKEND)).get(service) === 'UP',
    );
    close();
    const w = windows[windows.length - 1];
    const logs = await stack.docker(['logs', id]);
    if (exitCode !== '0') failures.push(`${service} exited ${exitCode} after SIGTERM`);
    if (outAfter < 0 || outAfter >= stopMs)
      failures.push(`${service}: HAProxy did not take it out of rotation before it exited`);
    if (logs.includes('drain timed out')) failures.push(`${service}: the drain timed out`);
    if (w.stats.requests === 0) failures.push(`${service}: no traffic during its restart`);
    console.log(
      `restarted ${service}: out of rotation after ${outAfter} ms, exit ${exitCode} after ${stopMs} ms, UP again ${upMs} ms after start`,
    );
    restarts.push({ service, outAfter, exitCode, stopMs, upMs, window: w });
    open(`after ${service}`);
    await sleep(SETTLE_MS);
  }
  await sleep(1_000);
  stopped = true;
  await traffic;
  close();
  for (const user of users) user.close();

  let refreshed = 0;
  for (const [i, cookie] of cookies.entries()) {
    const outcome = await send(
      { port: lbPort },
      {
        method: 'POST',
        path: '/api/auth/refresh',
        headers: { cookie: `refreshToken=${cookie}`, 'x-request-id': `scale-after-${i}` },
      },
      10_000,
    );
    if (outcome.status === 200) refreshed += 1;
    else failures.push(`pre-restart session ${i}: refresh answered ${outcome.status ?? outcome.error}`);
  }
  if (total.failureCount) failures.push(`${total.failureCount} requests failed during the rolling restart`);

  const backend = (await haproxyStats(statsPort)).find((row) => row.pxname === BACKEND && row.svname === 'BACKEND');
  const memory = await stack.docker([
    'stats',
    '--no-stream',
    '--format',
    '{{.Name}} {{.MemUsage}}',
    ...(await Promise.all(REPLICAS.map((s) => stack.containerId(s)))),
  ]);

  console.log(`\n=== rolling restart of ${REPLICAS.length} replicas behind HAProxy (${new Date().toISOString()}) ===`);
  console.log(total.summary());
  for (const w of windows)
    console.log(
      `  ${w.name.padEnd(14)} requests ${String(w.stats.requests).padStart(6)}, failures ${w.stats.failureCount}, p99 ${w.stats.percentile(99)} ms`,
    );
  for (const { service, outAfter, exitCode, stopMs, upMs, window: w } of restarts) {
    console.log(
      `restart ${service}: SIGTERM → out of rotation ${outAfter} ms → exit ${exitCode} at ${stopMs} ms; start → UP in HAProxy ${upMs} ms; ` +
        `requests ${w.stats.requests}, failures ${w.stats.failureCount}, p50 ${w.stats.percentile(50)} ms, p99 ${w.stats.percentile(99)} ms, max ${w.stats.maxLatency} ms`,
    );
  }
  console.log(`pre-restart refresh cookies working after the restarts: ${refreshed}/${cookies.length}`);
  console.log(
    `HAProxy backend: retries ${backend?.wretr ?? '?'}, redispatches ${backend?.wredis ?? '?'}, 5xx ${backend?.hrsp_5xx ?? '?'}, connection errors ${backend?.econ ?? '?'}`,
  );
  console.log(`replica memory after the run:\n${memory.trim().replace(/^/gm, '  ')}`);
  console.log(`scale test took ${Math.round((Date.now() - started) / 1000)} s (stack removal follows)`);
  if (failures.length) {
    // HAProxy logs one line per request (server, timings, status, retries): where a failure happened.
    const balancerLog = await stack
      .compose(['logs', '--no-color', '--tail', '40', 'haproxy'])
      .catch((error: Error) => error.message);
    console.log(`\nSCALE TEST FAILED:\n  ${failures.join('\n  ')}\nHAProxy log tail:\n${balancerLog}`);
    return 1;
  }
  console.log('\nSCALE TEST PASSED');
  return 0;
}

runDriver(main);
