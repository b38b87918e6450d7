import type { RunFigures } from './load';
import type { ScenarioId } from './scenarios';

// Turns the rounds into one line per scenario (medians, so one noisy round does not move the figure),
// checks the targets (docs/performance.md) and renders the table printed at the end of a run.

/** What users would pick instead (bench/peers/): production stacks on Fastify 5 and Express 5. */
export type PeerName = 'fastify' | 'express';
export const PEERS: readonly PeerName[] = ['fastify', 'express'];

/** The servers one round measures: the service, its two same-run references, and the peer stacks. */
export type ServerName = 'service' | 'bareKoa' | 'raw' | PeerName;

/** A load run of a round: a server answering the scenario, or the service answering its `comparedWith` request. */
export type Run = ServerName | 'compared';

export interface RoundFigures {
  round: number;
  /**
   * The order the servers ran in this round (the service alternates first and last, so drift cancels out);
   * `compared` is the service answering the scenario's `comparedWith` request.
   */
  order: Run[];
  service: RunFigures;
  bareKoa: RunFigures;
  raw: RunFigures;
  /** On the scenarios the peers answer alike (GET / and the protected GET). */
  fastify?: RunFigures;
  express?: RunFigures;
  /** The service answering the scenario's `comparedWith` request, right beside its own run. */
  compared?: RunFigures;
}

/** Resident memory of the service, MiB (VmRSS / VmHWM from /proc). */
export interface MemoryFigures {
  /** After start-up and a settle period, before any load. */
  idleRssMiB: number | undefined;
  /** The highest over the whole run (VmHWM). */
  peakRssMiB: number | undefined;
  /** After the login scenario and a settle period; undefined when login was not measured. */
  afterLoginsRssMiB: number | undefined;
}

interface ReferenceFigures {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  cpuMicrosPerRequest: number | undefined;
  errors: number;
  non2xx: number;
}

export interface ScenarioSummary {
  id: ScenarioId;
  title: string;
  connections: number;
  service: {
    requestsPerSecond: number;
    latencyP50Ms: number;
    latencyP99Ms: number;
    cpuMicrosPerRequest: number | undefined;
    /** The part of the CPU in the kernel, µs per request (median over rounds). */
    systemMicrosPerRequest: number | undefined;
    errors: number;
    non2xx: number;
    peakRssMiB: number | undefined;
  };
  bareKoa: ReferenceFigures;
  raw: ReferenceFigures;
  /** Median over rounds of (service req/s ÷ bare Koa + @koa/router req/s in the same round). */
  ratioToBareKoa: number;
  /**
   * Bare Koa's server CPU per request ÷ the service's (medians): the same comparison from CPU time, which a
   * machine shared with other work disturbs less than req/s. Undefined off Linux.
   */
  cpuRatioToBareKoa: number | undefined;
  /** Median over rounds of (service req/s ÷ raw req/s in the same round). */
  ratioToRaw: number;
  /** The peer stacks, where they ran this scenario. */
  peers?: Partial<Record<PeerName, ReferenceFigures>>;
  /** Median over rounds of (service req/s ÷ the peer's req/s in the same round). */
  ratioToPeer?: Partial<Record<PeerName, number>>;
  /**
   * The service's CPU per request ÷ that of the scenario's `comparedWith` request, each round's (measured
   * seconds apart) and their median.
   */
  costRatio?: { median: number; rounds: number[] };
  rounds: RoundFigures[];
}

export interface TargetCheck {
  scenario: ScenarioId | 'memory';
  target: string;
  measured: string;
  met: boolean;
}

export interface HashCost {
  /** Wall time of one argon2id verify with the auth module's parameters, median, ms. */
  wallMs: number;
  /** CPU time of one verify, ms (all threads of the reference's process), and the part of it in the kernel. */
  cpuMs: number;
  systemMs: number;
  parameters: Record<string, number>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function medianOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  return known.length ? median(known) : undefined;
}

function maxOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  return known.length ? Math.max(...known) : undefined;
}

export function summarise(id: ScenarioId, title: string, connections: number, rounds: RoundFigures[]): ScenarioSummary {
  const side = (pick: (round: RoundFigures) => RunFigures) => ({
    requestsPerSecond: median(rounds.map((round) => pick(round).requestsPerSecond)),
    latencyP50Ms: median(rounds.map((round) => pick(round).latencyP50Ms)),
    latencyP99Ms: median(rounds.map((round) => pick(round).latencyP99Ms)),
    cpuMicrosPerRequest: medianOf(rounds.map((round) => pick(round).serverCpuMicrosPerRequest)),
    errors: rounds.reduce((sum, round) => sum + pick(round).errors, 0),
    non2xx: rounds.reduce((sum, round) => sum + pick(round).non2xx, 0),
  });
  // The service's errors include those of the request it is compared with: a refused protected GET would make
  // the ratio meaningless.
  const service = {
    ...side((round) => round.service),
    errors: rounds.reduce((sum, round) => sum + round.service.errors + (round.compared?.errors ?? 0), 0),
    non2xx: rounds.reduce((sum, round) => sum + round.service.non2xx + (round.compared?.non2xx ?? 0), 0),
    systemMicrosPerRequest: medianOf(rounds.map((round) => round.service.serverSystemMicrosPerRequest)),
    peakRssMiB: maxOf(rounds.map((round) => round.service.serverPeakRssMiB)),
  };
  const bareKoa = side((round) => round.bareKoa);
  const ran = PEERS.filter((peer) => rounds.every((round) => round[peer] !== undefined));
  const peerFigures = ran.length
    ? {
        peers: Object.fromEntries(ran.map((peer) => [peer, side((round) => round[peer]!)])),
        ratioToPeer: Object.fromEntries(
          ran.map((peer) => [
            peer,
            median(rounds.map((round) => round.service.requestsPerSecond / round[peer]!.requestsPerSecond)),
          ]),
        ),
      }
    : {};
  return {
    ...peerFigures,
    id,
    title,
    connections,
    service,
    bareKoa,
    raw: side((round) => round.raw),
    ratioToBareKoa: median(rounds.map((round) => round.service.requestsPerSecond / round.bareKoa.requestsPerSecond)),
    cpuRatioToBareKoa:
      service.cpuMicrosPerRequest !== undefined && bareKoa.cpuMicrosPerRequest !== undefined
        ? bareKoa.cpuMicrosPerRequest / service.cpuMicrosPerRequest
        : undefined,
    ratioToRaw: median(rounds.map((round) => round.service.requestsPerSecond / round.raw.requestsPerSecond)),
    ...costRatioOf(rounds),
    rounds,
  };
}

/** The service's CPU per request ÷ that of the request it is compared with, in each round that ran both. */
function costRatioOf(rounds: RoundFigures[]): Pick<ScenarioSummary, 'costRatio'> {
  const ratios = rounds.flatMap(({ service, compared }) =>
    service.serverCpuMicrosPerRequest !== undefined && compared?.serverCpuMicrosPerRequest
      ? [service.serverCpuMicrosPerRequest / compared.serverCpuMicrosPerRequest]
      : [],
  );
  return ratios.length === rounds.length && ratios.length > 0
    ? { costRatio: { median: median(ratios), rounds: ratios } }
    : {};
}

const fixed = (value: number | undefined, digits: number) => (value === undefined ? 'n/a' : value.toFixed(digits));

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function renderReport(
  summaries: ScenarioSummary[],
  checks: TargetCheck[],
  extra: { memory: MemoryFigures; hash: HashCost | undefined },
): string {
  const figures = table(
    [
      'scenario',
      'conns',
      'req/s',
      'p50 ms',
      'p99 ms',
      'err',
      'non2xx',
      'cpu µs/req',
      'koa req/s',
      'koa cpu µs/req',
      '×koa',
      'raw req/s',
      'raw cpu µs/req',
      '×raw',
      'fastify req/s',
      '×fastify',
      'express req/s',
      '×express',
    ],
    summaries.map((s) => [
      s.id,
      String(s.connections),
      fixed(s.service.requestsPerSecond, 0),
      fixed(s.service.latencyP50Ms, 1),
      fixed(s.service.latencyP99Ms, 1),
      String(s.service.errors),
      String(s.service.non2xx),
      fixed(s.service.cpuMicrosPerRequest, 0),
      fixed(s.bareKoa.requestsPerSecond, 0),
      fixed(s.bareKoa.cpuMicrosPerRequest, 0),
      `${fixed(s.ratioToBareKoa, 2)}×`,
      fixed(s.raw.requestsPerSecond, 0),
      fixed(s.raw.cpuMicrosPerRequest, 0),
      `${fixed(s.ratioToRaw, 2)}×`,
      ...PEERS.flatMap((peer) => [
        fixed(s.peers?.[peer]?.requestsPerSecond, 0),
        s.ratioToPeer?.[peer] === undefined ? '—' : `${fixed(s.ratioToPeer[peer], 2)}×`,
      ]),
    ]),
  );
  const targets = table(
    ['scenario', 'target', 'measured', 'verdict'],
    checks.map((check) => [check.scenario, check.target, check.measured, check.met ? 'met' : 'MISSED']),
  );
  const notes = [
    `service RSS: idle ${fixed(extra.memory.idleRssMiB, 1)} MiB, peak ${fixed(extra.memory.peakRssMiB, 1)} MiB, after logins ${fixed(extra.memory.afterLoginsRssMiB, 1)} MiB`,
    extra.hash
      ? `argon2id verify alone: ${extra.hash.wallMs.toFixed(1)} ms wall, ${extra.hash.cpuMs.toFixed(1)} ms CPU` +
        ` (system ${extra.hash.systemMs.toFixed(1)} ms)`
      : undefined,
  ].filter(Boolean);
  return `${figures}\n\n${targets}\n\n${notes.join('\n')}\n`;
}
