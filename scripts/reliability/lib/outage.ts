import { send, type Call, type Outcome } from './http';
import { sleep } from './children';
import type { ServiceProcess } from './service';
import { Stats } from './stats';
import { runTraffic, type ActionName, type Record_, type VirtualUser } from './traffic';

// One outage of a dependency with traffic running: probes measure when the service starts refusing
// (time to 503) and when it answers normally again (time to recover); the background traffic must never
// get a 500, a hang or a malformed answer, and 503 only where the outage explains it.

export interface Probe {
  name: string;
  call: Call;
  /** 503: this call depends on what is down. 200: it must keep working during the outage. */
  duringOutage: 200 | 503;
}

interface Sample {
  probe: string;
  sentAt: number;
  answeredAt: number;
  status: number | string;
}

export interface OutageOptions {
  name: string;
  service: ServiceProcess;
  probes: Probe[];
  users: VirtualUser[];
  /** Traffic actions that may answer 503 while the dependency is down (and until recovery). */
  mayFail: (action: ActionName) => boolean;
  stopDependency: () => Promise<void>;
  startDependency: () => Promise<void>;
  outageMs: number;
  /** How long after the restart to keep watching; at least the recovery bound. */
  settleMs: number;
  /** The bounds the issue sets: 503 within 5 s, normal within 10 s. */
  refuseWithinMs: number;
  recoverWithinMs: number;
}

export interface OutageResult {
  failures: string[];
  timeTo503Ms: number;
  timeToRecoverMs: number;
  dependencyStartMs: number;
  stats: Stats;
  maxOutageLatencyMs: number;
}

const PROBE_ADDRESS = '127.0.0.250';

export async function runOutage(options: OutageOptions): Promise<OutageResult> {
  const { service, probes } = options;
  const failures: string[] = [];
  const samples: Sample[] = [];
  const records: Record_[] = [];
  let finished = false;

  // Probes: each in its own loop, a fresh connection per call (what a health checker does), every 100 ms.
  const probing = probes.map(async (probe) => {
    for (let i = 0; i < 2_000 && !finished; i += 1) {
      const outcome: Outcome = await send({ port: service.port, localAddress: PROBE_ADDRESS }, probe.call, 15_000);
      samples.push({
        probe: probe.name,
        sentAt: outcome.startedAt,
        answeredAt: outcome.startedAt + outcome.ms,
        status: outcome.status ?? outcome.error ?? '?',
      });
      await sleep(100);
    }
  });
  const traffic = runTraffic({
    users: options.users,
    until: Date.now() + 600_000,
    maxActions: 10_000_000,
    onRecord: (r) => records.push(r),
    stopped: () => finished,
  });

  await sleep(2_000); // a normal baseline first
  const t0 = Date.now();
  await options.stopDependency();
  console.log(`[${options.name}] dependency stopped (took ${Date.now() - t0} ms)`);
  await sleep(Math.max(0, options.outageMs - (Date.now() - t0)));
  const t1 = Date.now();
  await options.startDependency();
  const dependencyStartMs = Date.now() - t1;
  console.log(`[${options.name}] dependency started again (took ${dependencyStartMs} ms)`);
  await sleep(options.settleMs);
  finished = true;
  await Promise.all([...probing, traffic]);

  // Time to 503: for each probe that depends on the stopped thing, the first 503 answer after t0.
  let timeTo503Ms = 0;
  for (const probe of probes.filter((p) => p.duringOutage === 503)) {
    const first = samples.find((s) => s.probe === probe.name && s.sentAt >= t0 && s.status === 503);
    if (!first || first.answeredAt > t1) failures.push(`${probe.name}: no 503 during the outage`);
    else timeTo503Ms = Math.max(timeTo503Ms, first.answeredAt - t0);
  }
  // During the outage no probe may get anything but its expected answer (200 before it notices is fine).
  for (const s of samples.filter((x) => x.answeredAt >= t0 && x.sentAt < t1)) {
    const probe = probes.find((p) => p.name === s.probe)!;
    if (s.status !== 503 && s.status !== 200) failures.push(`${s.probe}: answered ${s.status} during the outage`);
    if (probe.duringOutage === 200 && s.status !== 200)
      failures.push(`${s.probe}: answered ${s.status} during the outage (must stay 200)`);
  }
  // Time to recover: for each probe, the first 200 after which it never failed again, counted from the restart command.
  let timeToRecoverMs = 0;
  for (const probe of probes) {
    const after = samples.filter((s) => s.probe === probe.name && s.sentAt >= t1);
    const lastBad = after.reduce((index, s, i) => (s.status !== 200 ? i : index), -1);
    const recovered = after[lastBad + 1];
    if (!recovered) failures.push(`${probe.name}: never answered 200 again`);
    else timeToRecoverMs = Math.max(timeToRecoverMs, recovered.answeredAt - t1);
  }
  if (timeTo503Ms > options.refuseWithinMs)
    failures.push(`time to 503 ${timeTo503Ms} ms > ${options.refuseWithinMs} ms`);
  if (timeToRecoverMs > options.recoverWithinMs)
    failures.push(`time to recover ${timeToRecoverMs} ms > ${options.recoverWithinMs} ms`);

  // Background traffic: 503 allowed only for dependent actions answered after t0 and sent before recovery.
  const stats = new Stats();
  let maxOutageLatencyMs = 0;
  for (const record of records) {
    const { startedAt, ms } = record.outcome;
    const inWindow = startedAt + ms >= t0 && startedAt <= t1 + timeToRecoverMs;
    if (inWindow) maxOutageLatencyMs = Math.max(maxOutageLatencyMs, ms);
    stats.record(record, inWindow && options.mayFail(record.action) ? [503] : []);
  }
  if (stats.failureCount) failures.push(`${stats.failureCount} traffic failures`);
  if (maxOutageLatencyMs > options.refuseWithinMs + 1_000)
    failures.push(`a request took ${maxOutageLatencyMs} ms during the outage`);
  if (!service.alive) failures.push('the service process died');
  return { failures, timeTo503Ms, timeToRecoverMs, dependencyStartMs, stats, maxOutageLatencyMs };
}
