import type { HashCost, MemoryFigures, ScenarioSummary, TargetCheck } from './report';
import type { ScenarioId } from './scenarios';

// What `make bench` holds the service to (docs/performance.md, "Reading the report"), checked against a run's
// figures: each target met or MISSED.

/** ` (system x ms)`: the kernel's part of a CPU figure in µs, or nothing when unknown. */
function kernelPart(systemMicros: number | undefined): string {
  return systemMicros === undefined ? '' : ` (system ${(systemMicros / 1000).toFixed(1)} ms)`;
}

/** The targets of issues 7 and 14, for the scenarios this run measured. */
export function checkTargets(
  summaries: ScenarioSummary[],
  hash: HashCost | undefined,
  memory: MemoryFigures,
): TargetCheck[] {
  const byId = new Map(summaries.map((summary) => [summary.id, summary]));
  const checks: TargetCheck[] = [];
  const ratioTarget = (id: ScenarioId, minimum: number, reference: 'bare Koa' | 'raw') => {
    const summary = byId.get(id);
    if (!summary) return;
    const ratio = reference === 'raw' ? summary.ratioToRaw : summary.ratioToBareKoa;
    const byCpu =
      reference === 'bare Koa' && summary.cpuRatioToBareKoa !== undefined
        ? ` (by CPU/req ${summary.cpuRatioToBareKoa.toFixed(2)}×)`
        : '';
    checks.push({
      scenario: id,
      target: `≥ ${minimum.toFixed(2)}× ${reference}`,
      measured: `${ratio.toFixed(2)}×${byCpu}`,
      met: ratio >= minimum,
    });
  };
  ratioTarget('get-root', 0.6, 'bare Koa');
  ratioTarget('protected', 0.75, 'bare Koa');
  for (const id of ['get-root', 'protected'] as const) {
    // In every round (issue 39), not only in the median one.
    const rounds = byId.get(id)?.rounds ?? [];
    if (rounds.length === 0 || rounds.some((round) => !round.fastify)) continue;
    const ratios = rounds.map((round) => round.service.requestsPerSecond / round.fastify!.requestsPerSecond);
    const lowest = Math.min(...ratios);
    const measured = `lowest ${lowest.toFixed(2)}× (rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')})`;
    checks.push({ scenario: id, target: '≥ 1.20× the Fastify stack in every round', measured, met: lowest >= 1.2 });
  }

  const refresh = byId.get('refresh')?.costRatio;
  if (refresh) {
    // Each round's refresh beside a protected GET run on the service seconds before or after it: a slower spell
    // of the host between two scenarios cannot move the ratio.
    checks.push({
      scenario: 'refresh',
      target: '≤ 2× the protected GET (server CPU per request, same rounds)',
      measured: `${refresh.median.toFixed(2)}× (rounds ${refresh.rounds.map((ratio) => ratio.toFixed(2)).join(', ')})`,
      met: refresh.median <= 2,
    });
  }

  const login = byId.get('login');
  if (login && hash && login.service.cpuMicrosPerRequest !== undefined) {
    // Bounded by the hash: the rest of the login path (HTTP, JSON, tokens, store insert) costs at most a
    // tenth of one argon2id verify.
    const share = login.service.cpuMicrosPerRequest / 1000 / hash.cpuMs;
    const perLogin = (login.service.cpuMicrosPerRequest / 1000).toFixed(1);
    checks.push({
      scenario: 'login',
      target: `CPU per login ≤ 1.10× one argon2id verify (${hash.cpuMs.toFixed(1)} ms)`,
      measured: `${perLogin} ms${kernelPart(login.service.systemMicrosPerRequest)} = ${share.toFixed(2)}×`,
      met: share <= 1.1,
    });
  }

  checks.push(...memoryTargets(memory));

  for (const summary of summaries) {
    const bad = summary.service.errors + summary.service.non2xx;
    checks.push({
      scenario: summary.id,
      target: 'no errors, no non-2xx',
      measured: `${summary.service.errors} errors, ${summary.service.non2xx} non-2xx`,
      met: bad === 0,
    });
  }
  return checks;
}

/** The service's resident memory: idle, at its peak, and once the logins have settled. */
function memoryTargets(memory: MemoryFigures): TargetCheck[] {
  const limits: [keyof MemoryFigures, string, number][] = [
    ['idleRssMiB', 'idle RSS', 90],
    ['peakRssMiB', 'peak RSS', 200],
    ['afterLoginsRssMiB', 'RSS after logins', 140],
  ];
  return limits.flatMap(([name, label, maximum]) => {
    const value = memory[name];
    return value === undefined
      ? []
      : [
          {
            scenario: 'memory' as const,
            target: `${label} ≤ ${maximum} MiB`,
            measured: `${value.toFixed(1)} MiB`,
            met: value <= maximum,
          },
        ];
  });
}
