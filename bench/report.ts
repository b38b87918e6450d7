import type { RunFigures } from './load';
import type { ScenarioId } from './scenarios';

// Turns the rounds into one line per scenario (medians, so one noisy round does not move the figure),
// checks the targets of issue 7 and renders the table printed at the end of a run.

export interface RoundFigures {
  round: number;
  /** Which server ran first in this round (alternates, so drift on the machine cancels out). */
  order: 'service-first' | 'raw-first';
  service: RunFigures;
  raw: RunFigures;
}

export interface ScenarioSummary {
  id: ScenarioId;
  title: string;
  connections: number;
  service: { requestsPerSecond: number; latencyP50Ms: number; latencyP99Ms: number; cpuMicrosPerRequest: number | undefined; errors: number; non2xx: number; peakRssMiB: number | undefined };
  raw: { requestsPerSecond: number; latencyP50Ms: number; latencyP99Ms: number; cpuMicrosPerRequest: number | undefined; errors: number; non2xx: number };
  /** Median over rounds of (service req/s ÷ raw req/s in the same round). */
  ratioToRaw: number;
  rounds: RoundFigures[];
}

export interface TargetCheck {
  scenario: ScenarioId;
  target: string;
  measured: string;
  met: boolean;
}

export interface HashCost {
  /** Wall time of one argon2id verify with the auth module's parameters, median, ms. */
  wallMs: number;
  /** CPU time of one verify, ms (all threads of the harness process). */
  cpuMs: number;
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
  return {
    id,
    title,
    connections,
    service: { ...side((round) => round.service), peakRssMiB: maxOf(rounds.map((round) => round.service.serverPeakRssMiB)) },
    raw: side((round) => round.raw),
    ratioToRaw: median(rounds.map((round) => round.service.requestsPerSecond / round.raw.requestsPerSecond)),
    rounds,
  };
}

const fixed = (value: number | undefined, digits: number) => (value === undefined ? 'n/a' : value.toFixed(digits));

/** The targets of issue 7, for the scenarios this run measured. */
export function checkTargets(summaries: ScenarioSummary[], hash: HashCost | undefined): TargetCheck[] {
  const byId = new Map(summaries.map((summary) => [summary.id, summary]));
  const checks: TargetCheck[] = [];
  const ratioTarget = (id: ScenarioId, minimum: number) => {
    const summary = byId.get(id);
    if (!summary) return;
    checks.push({ scenario: id, target: `≥ ${minimum.toFixed(2)}× raw`, measured: `${summary.ratioToRaw.toFixed(2)}×`, met: summary.ratioToRaw >= minimum });
  };
  ratioTarget('get-root', 0.45);
  ratioTarget('protected', 0.35);

  const refresh = byId.get('refresh');
  const guarded = byId.get('protected');
  if (refresh && guarded && refresh.service.cpuMicrosPerRequest !== undefined && guarded.service.cpuMicrosPerRequest !== undefined) {
    const cost = refresh.service.cpuMicrosPerRequest / guarded.service.cpuMicrosPerRequest;
    checks.push({ scenario: 'refresh', target: '≤ 2× the protected GET (server CPU per request)', measured: `${cost.toFixed(2)}×`, met: cost <= 2 });
  }

  const login = byId.get('login');
  if (login && hash && login.service.cpuMicrosPerRequest !== undefined) {
    // Bounded by the hash: the rest of the login path (HTTP, JSON, tokens, store insert) costs at most a
    // quarter of one argon2id verify.
    const share = login.service.cpuMicrosPerRequest / 1000 / hash.cpuMs;
    checks.push({
      scenario: 'login',
      target: `CPU per login ≤ 1.25× one argon2id verify (${hash.cpuMs.toFixed(1)} ms)`,
      measured: `${(login.service.cpuMicrosPerRequest / 1000).toFixed(1)} ms = ${share.toFixed(2)}×`,
      met: share <= 1.25,
    });
  }

  for (const summary of summaries) {
    const bad = summary.service.errors + summary.service.non2xx;
    checks.push({ scenario: summary.id, target: 'no errors, no non-2xx', measured: `${summary.service.errors} errors, ${summary.service.non2xx} non-2xx`, met: bad === 0 });
  }
  return checks;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function renderReport(summaries: ScenarioSummary[], checks: TargetCheck[], extra: { peakRssMiB: number | undefined; hash: HashCost | undefined }): string {
  const figures = table(
    ['scenario', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'err', 'non2xx', 'cpu µs/req', 'raw req/s', 'raw cpu µs/req', 'ratio'],
    summaries.map((s) => [
      s.id,
      String(s.connections),
      fixed(s.service.requestsPerSecond, 0),
      fixed(s.service.latencyP50Ms, 1),
      fixed(s.service.latencyP99Ms, 1),
      String(s.service.errors),
      String(s.service.non2xx),
      fixed(s.service.cpuMicrosPerRequest, 0),
      fixed(s.raw.requestsPerSecond, 0),
      fixed(s.raw.cpuMicrosPerRequest, 0),
      `${fixed(s.ratioToRaw, 2)}×`,
    ]),
  );
  const targets = table(
    ['scenario', 'target', 'measured', 'verdict'],
    checks.map((check) => [check.scenario, check.target, check.measured, check.met ? 'met' : 'MISSED']),
  );
  const notes = [
    `service peak RSS (VmHWM): ${fixed(extra.peakRssMiB, 1)} MiB`,
    extra.hash ? `argon2id verify alone: ${extra.hash.wallMs.toFixed(1)} ms wall, ${extra.hash.cpuMs.toFixed(1)} ms CPU` : undefined,
  ].filter(Boolean);
  return `${figures}\n\n${targets}\n\n${notes.join('\n')}\n`;
}
