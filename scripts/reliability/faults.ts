import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { send, refreshCookieFrom } from './lib/http';
import { runOutage, type OutageResult, type Probe } from './lib/outage';
import { PostgresCluster } from './lib/postgres';
import { RedisServer } from './lib/redis';
import { ServiceProcess } from './lib/service';
import { runDirectory, setting } from './lib/settings';
import { DEMO, sourceAddresses, TOUCHES_DATABASE, UNDER_AUTH, VirtualUser } from './lib/traffic';
import { runDriver } from './lib/children';

// Fault injection against the production build, traffic running throughout:
//  1. PostgreSQL stopped (pg_ctl -m immediate: a crash) and started again. Readiness and the auth calls
//     must answer 503 within 5 s, nothing may hang, crash or 500; once it is back, everything answers
//     normally within 10 s without restarting the service, and refresh tokens issued before the outage work.
//  2. With REDIS_URL: redis-server killed and started again. The auth rate limit fails closed (503 on
//     /api/auth/*, see src/modules/auth/rate-limit.ts), everything else keeps answering, and it recovers.
// Skip the Redis part with FAULTS_REDIS=0, or when redis-server is not installed (it says so).

const OUTAGE_MS = setting('OUTAGE_SECONDS', 8, 6, 120) * 1000;
const SETTLE_MS = 12_000;
const REFUSE_WITHIN_MS = 5_000;
const RECOVER_WITHIN_MS = 10_000;

const json = { 'content-type': 'application/json' };

async function preOutageSessions(port: number, count: number): Promise<string[]> {
  const cookies: string[] = [];
  for (const address of sourceAddresses(count).map((a) => a.replace(/^127\.0\.0\./, '127.0.1.'))) {
    const login = await send(
      { port, localAddress: address },
      { method: 'POST', path: '/api/auth/login', headers: json, body: JSON.stringify(DEMO) },
      10_000,
    );
    const cookie = refreshCookieFrom(login.headers);
    if (login.status !== 200 || !cookie)
      throw new Error(`login before the outage failed: ${login.status ?? login.error}`);
    cookies.push(cookie);
  }
  return cookies;
}

async function refreshAll(port: number, cookies: string[]): Promise<number> {
  let ok = 0;
  for (const cookie of cookies) {
    const res = await send(
      { port, localAddress: '127.0.1.200' },
      { method: 'POST', path: '/api/auth/refresh', headers: { cookie: `refreshToken=${cookie}` } },
      10_000,
    );
    if (res.status === 200) ok += 1;
  }
  return ok;
}

function report(name: string, result: OutageResult, extra: string[] = []): void {
  console.log(`\n=== ${name} (${new Date().toISOString()}) ===`);
  console.log(
    `time to 503 ${result.timeTo503Ms} ms (bound ${REFUSE_WITHIN_MS}); time to recover ${result.timeToRecoverMs} ms after the restart command (bound ${RECOVER_WITHIN_MS}; the dependency itself took ${result.dependencyStartMs} ms to start)`,
  );
  console.log(`slowest answer during the outage ${result.maxOutageLatencyMs} ms`);
  console.log(result.stats.summary());
  for (const line of extra) console.log(line);
  console.log(result.failures.length ? `FAILED: ${result.failures.join('; ')}` : 'PASSED');
}

/** The same outage timings and bounds for every dependency. */
const TIMINGS = {
  outageMs: OUTAGE_MS,
  settleMs: SETTLE_MS,
  refuseWithinMs: REFUSE_WITHIN_MS,
  recoverWithinMs: RECOVER_WITHIN_MS,
};

function users(port: number): VirtualUser[] {
  return sourceAddresses(3).flatMap((address) => [
    new VirtualUser(port, address, 15_000),
    new VirtualUser(port, address, 15_000),
  ]);
}

/** Login and refresh: both need the store and the limiter, so both must answer 503 during either outage. */
function authProbes(refreshToken: string): Probe[] {
  return [
    {
      name: 'POST /api/auth/login',
      call: { method: 'POST', path: '/api/auth/login', headers: json, body: JSON.stringify(DEMO) },
      duringOutage: 503,
    },
    {
      name: 'POST /api/auth/refresh',
      call: { method: 'POST', path: '/api/auth/refresh', headers: { cookie: `refreshToken=${refreshToken}` } },
      duringOutage: 503,
    },
  ];
}

async function databaseOutage(dir: string, postgres: PostgresCluster): Promise<string[]> {
  const service = await ServiceProcess.start({ DATABASE_URL: postgres.url }, join(dir, 'service-database-outage.log'));
  const cookies = await preOutageSessions(service.port, 10);
  const pid = service.pid;
  const probes: Probe[] = [
    { name: 'GET /health/ready', call: { method: 'GET', path: '/health/ready' }, duringOutage: 503 },
    ...authProbes(cookies[0]),
    { name: 'GET /health/live', call: { method: 'GET', path: '/health/live' }, duringOutage: 200 },
    { name: 'GET /', call: { method: 'GET', path: '/' }, duringOutage: 200 },
  ];
  const traffic = users(service.port);
  const result = await runOutage({
    name: 'database outage',
    service,
    probes,
    users: traffic,
    mayFail: (action) => TOUCHES_DATABASE.has(action),
    stopDependency: () => postgres.stop('immediate'),
    startDependency: () => postgres.start(),
    ...TIMINGS,
  });
  for (const user of traffic) user.close();
  const survived = await refreshAll(service.port, cookies);
  if (survived !== cookies.length)
    result.failures.push(`only ${survived} of ${cookies.length} refresh tokens issued before the outage still work`);
  if (service.pid !== pid || !service.alive) result.failures.push('the service was restarted or died');
  const exit = await service.terminate(30_000);
  if (exit.code !== 0) result.failures.push(`exit ${exit.code ?? exit.signal} on SIGTERM`);
  report('PostgreSQL outage (pg_ctl stop -m immediate, then start)', result, [
    `refresh tokens issued before the outage that work after it: ${survived}/${cookies.length}`,
    `same service process throughout: pid ${pid}; SIGTERM → exit ${exit.code} in ${exit.ms} ms`,
  ]);
  return result.failures.map((f) => `database outage: ${f}`);
}

async function redisOutage(dir: string, postgres: PostgresCluster): Promise<string[]> {
  const redis = await RedisServer.create();
  const service = await ServiceProcess.start(
    { DATABASE_URL: postgres.url, REDIS_URL: redis.url },
    join(dir, 'service-redis-outage.log'),
  );
  const cookies = await preOutageSessions(service.port, 3);
  const probes: Probe[] = [
    ...authProbes(cookies[0]),
    { name: 'GET /', call: { method: 'GET', path: '/' }, duringOutage: 200 },
    { name: 'GET /health/ready', call: { method: 'GET', path: '/health/ready' }, duringOutage: 200 },
  ];
  const traffic = users(service.port);
  const result = await runOutage({
    name: 'redis outage',
    service,
    probes,
    users: traffic,
    mayFail: UNDER_AUTH,
    stopDependency: () => redis.kill(),
    startDependency: () => redis.start(),
    ...TIMINGS,
  });
  for (const user of traffic) user.close();
  const survived = await refreshAll(service.port, cookies);
  if (survived !== cookies.length)
    result.failures.push(`only ${survived} of ${cookies.length} sessions work after the Redis outage`);
  const exit = await service.terminate(30_000);
  if (exit.code !== 0) result.failures.push(`exit ${exit.code ?? exit.signal} on SIGTERM`);
  report('Redis outage (redis-server SIGKILL, then started again on the same port); limiter fails closed', result, [
    `sessions usable after the outage: ${survived}/${cookies.length}; SIGTERM → exit ${exit.code} in ${exit.ms} ms`,
  ]);
  await redis.kill();
  return result.failures.map((f) => `redis outage: ${f}`);
}

function redisAvailable(): boolean {
  return spawnSync(process.env.REDIS_SERVER ?? 'redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function main(): Promise<number> {
  const dir = runDirectory('faults');
  console.log(`fault injection; logs in ${dir}`);
  const postgres = await PostgresCluster.create();
  const failures = await databaseOutage(dir, postgres);
  if (process.env.FAULTS_REDIS === '0') console.log('\nRedis outage skipped (FAULTS_REDIS=0)');
  else if (!redisAvailable()) {
    console.log('\nRedis outage: redis-server is not installed (apt-get install -y redis-server)');
    failures.push('redis-server missing');
  } else failures.push(...(await redisOutage(dir, postgres)));
  console.log(failures.length ? `\nFAULT TESTS FAILED:\n  ${failures.join('\n  ')}` : '\nFAULT TESTS PASSED');
  return failures.length ? 1 : 0;
}

runDriver(main);
