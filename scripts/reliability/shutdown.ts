import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep, runDriver } from './lib/children';
import { PostgresCluster } from './lib/postgres';
import { ServiceProcess } from './lib/service';
import { runDirectory, setting } from './lib/settings';
import { Stats } from './lib/stats';
import { runTraffic, sourceAddresses, VirtualUser, type Record_ } from './lib/traffic';

// Shutdown under load: SIGTERM to the production process while mixed traffic runs on keep-alive
// connections. Passes when
//  - every request the service received got a complete answer (none cut off): a request that got no
//    answer counts as cut off when its X-Request-Id is in the service's request log (the app handled it);
//    one that is not there never reached the app: refused after the listener closed (ECONNREFUSED), or
//    sent on a keep-alive connection the server closed as idle at that moment (the race RFC 9112 §9.3.1
//    leaves to clients' retries). Both are counted and printed; a partial answer or a timeout always fails;
//  - readiness answers 503 once SIGTERM arrives. The service runs with SHUTDOWN_DELAY (2 s): readiness
//    turns 503 while the listener still accepts, as a load balancer would see it. "Observer" users
//    alternate a login (slow: argon2) and GET /health/ready; every readiness answer marked
//    `Connection: close` (the shutdown's mark) must be 503, and at least one must be seen;
//  - the process exits 0 within SHUTDOWN_DELAY + SHUTDOWN_TIMEOUT (plus 1 s for the exit itself), without the drain timing out.

const SHUTDOWN_TIMEOUT_S = setting('SHUTDOWN_TIMEOUT_SECONDS', 10, 1, 120);
const LOAD_BEFORE_MS = 4_000;
const SHUTDOWN_DELAY_S = 2;

function header(record: Record_, name: string): string {
  return String(record.outcome.headers[name] ?? '');
}

async function main(): Promise<number> {
  const dir = runDirectory('shutdown');
  console.log(`shutdown under load; logs in ${dir}`);
  const postgres = await PostgresCluster.create();
  // LOG_LEVEL=info: the request log (one line per handled request, with its id) is the evidence of what the app received.
  const service = await ServiceProcess.start(
    {
      DATABASE_URL: postgres.url,
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY: `${SHUTDOWN_DELAY_S}s`,
      SHUTDOWN_TIMEOUT: `${SHUTDOWN_TIMEOUT_S}s`,
    },
    join(dir, 'service.log'),
  );
  const users = sourceAddresses(4).flatMap((address) =>
    [0, 1, 2].map(() => new VirtualUser(service.port, address, 20_000)),
  );
  const observers = sourceAddresses(6).map(
    (address) => new VirtualUser(service.port, address.replace(/^127\.0\.0\./, '127.0.2.'), 20_000),
  );

  const records: Record_[] = [];
  const stopped = () => !service.alive;
  const bound = Date.now() + LOAD_BEFORE_MS + (SHUTDOWN_DELAY_S + SHUTDOWN_TIMEOUT_S + 15) * 1000;
  const traffic = runTraffic({ users, until: bound, maxActions: 5_000_000, onRecord: (r) => records.push(r), stopped });
  const watching = observers.map(async (observer) => {
    for (let i = 0; i < 100_000 && Date.now() < bound && !stopped(); i += 1) {
      for (const record of await observer.step('login')) records.push(record);
      for (const record of await observer.step('ready')) records.push(record);
    }
  });

  await sleep(LOAD_BEFORE_MS);
  const inFlightAtSignal = records.length;
  const t0 = Date.now();
  service.child.kill('SIGTERM');
  let exitCode: number | null = null;
  let exitMs = -1;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, (SHUTDOWN_DELAY_S + SHUTDOWN_TIMEOUT_S + 10) * 1000);
    service.child.once('exit', (code) => {
      exitCode = code;
      exitMs = Date.now() - t0;
      clearTimeout(timer);
      resolve();
    });
  });
  await Promise.all([traffic, ...watching]);
  for (const user of [...users, ...observers]) user.close();

  const handled = new Set<string>();
  for (const line of readFileSync(service.logFile, 'utf8').split('\n')) {
    const id = /"reqId":"([^"]+)"/.exec(line)?.[1];
    if (id) handled.add(id);
  }
  const log = service.logTail(1_000_000);

  const stats = new Stats();
  let refused = 0;
  let neverReached = 0;
  let readyDuringDrain = 0;
  let answeredAfterSignal = 0;
  for (const record of records) {
    const { outcome } = record;
    const answeredAt = outcome.startedAt + outcome.ms;
    if (outcome.status === undefined) {
      if (outcome.error === 'ECONNREFUSED' && outcome.startedAt >= t0) refused += 1;
      else if (
        !outcome.gotHead &&
        outcome.error !== 'TIMEOUT' &&
        outcome.startedAt >= t0 - 1_000 &&
        !handled.has(record.requestId)
      )
        neverReached += 1;
      else
        stats.fail(
          `cut off (${outcome.error})`,
          `${record.action} ${record.requestId} sent ${outcome.startedAt - t0} ms after SIGTERM: ${outcome.error}`,
        );
      continue;
    }
    if (answeredAt >= t0) answeredAfterSignal += 1;
    const draining = answeredAt >= t0 && record.action === 'ready';
    if (draining && outcome.status === 503) readyDuringDrain += 1;
    if (record.action === 'ready' && /close/i.test(header(record, 'connection')) && outcome.status !== 503) {
      stats.fail('ready not 503 while draining', `${record.requestId}: ${outcome.status}`);
    }
    stats.record(record, draining ? [503] : []);
  }

  const failures: string[] = [];
  if (stats.failureCount) failures.push(`${stats.failureCount} requests failed or were cut off`);
  if (readyDuringDrain === 0) failures.push('readiness was never observed answering 503 during the drain');
  if (exitCode !== 0) failures.push(`exit code ${exitCode}`);
  if (exitMs < 0 || exitMs > (SHUTDOWN_DELAY_S + SHUTDOWN_TIMEOUT_S) * 1000 + 1_000)
    failures.push(`exit took ${exitMs} ms (bound ${SHUTDOWN_DELAY_S} + ${SHUTDOWN_TIMEOUT_S} s)`);
  if (log.includes('drain timed out')) failures.push('the drain timed out and cut connections');
  if (!log.includes('"msg":"stopped"')) failures.push('no "stopped" line in the service log');

  console.log(`\n=== shutdown under load (${new Date().toISOString()}) ===`);
  console.log(`requests before SIGTERM ${inFlightAtSignal}, answered after SIGTERM (drained) ${answeredAfterSignal}`);
  console.log(stats.summary());
  console.log(
    `readiness 503 during the drain: ${readyDuringDrain}; refused after the listener closed: ${refused}; closed idle keep-alive before the app read them: ${neverReached}`,
  );
  console.log(
    `SIGTERM → exit ${exitCode} in ${exitMs} ms (SHUTDOWN_DELAY ${SHUTDOWN_DELAY_S} s, SHUTDOWN_TIMEOUT ${SHUTDOWN_TIMEOUT_S} s)`,
  );
  if (failures.length) {
    console.log(`\nSHUTDOWN TEST FAILED: ${failures.join('; ')}\nservice log tail:\n${service.logTail(2_000)}`);
    return 1;
  }
  console.log('\nSHUTDOWN TEST PASSED');
  return 0;
}

runDriver(main);
