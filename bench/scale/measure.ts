import { performance } from 'node:perf_hooks';
import type { ScaleSettings } from './settings';

// One page kind on one owner, timed over real HTTP on loopback: the path is resolved first (a third page
// follows data.nextCursor twice), then warm-ups, then the measured repetitions, one request at a time. A
// kind whose warm-ups all answer slower than BENCH_SCALE_SLOW_MS is measured fewer times, and no kind runs past
// BENCH_SCALE_KIND_BUDGET seconds on one owner: the figures say how many samples they hold.

export interface PageKind {
  id: string;
  title: string;
  /** Path and query of the first page of the kind. */
  path: string;
  /** Pages to follow by data.nextCursor before the one measured (2: the third page). */
  follow?: number;
  /** A kind the service may not offer yet: a 422 skips it with a printed note instead of an error. */
  optional?: boolean;
}

export interface Figures {
  p50Ms: number;
  p99Ms: number;
  samples: number;
  /** Why fewer than the configured repetitions were taken, when they were. */
  note?: string;
}

export type Outcome = { figures: Figures } | { skipped: string } | { error: string };

export interface Answer {
  status: number;
  ms: number;
  body: {
    status?: string;
    message?: string;
    data?: { nextCursor?: string | null; items?: unknown[] };
    errors?: unknown;
  };
}

export async function get(baseUrl: string, path: string, authorization: string): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization, accept: 'application/json' } });
  const body = (await response.json()) as Answer['body'];
  return { status: response.status, ms: performance.now() - started, body };
}

const describe = (answer: Answer) =>
  `${answer.status} ${answer.body.message ?? ''}${answer.body.errors ? ` ${JSON.stringify(answer.body.errors)}` : ''}`.trim();

/** The path of the page measured: the kind's own, or the one after following nextCursor `follow` times. */
export async function resolvePath(
  baseUrl: string,
  kind: PageKind,
  authorization: string,
): Promise<{ path: string } | { answer: Answer; error?: string }> {
  let path = kind.path;
  for (let page = 0; page < (kind.follow ?? 0); page += 1) {
    const answer = await get(baseUrl, path, authorization);
    if (answer.status !== 200) return { answer };
    const cursor = answer.body.data?.nextCursor;
    if (cursor === undefined)
      return { answer, error: 'the answer has no nextCursor: this list does not page by cursor' };
    if (cursor === null) return { answer, error: `no page ${page + 2}: the list ends on page ${page + 1}` };
    path = `${kind.path}${kind.path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
  }
  return { path };
}

/** Nearest-rank percentile of sorted samples (p99 of 15 samples is the slowest one). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function measureKind(
  baseUrl: string,
  kind: PageKind,
  authorization: string,
  settings: ScaleSettings,
): Promise<Outcome> {
  const resolved = await resolvePath(baseUrl, kind, authorization);
  if ('answer' in resolved) {
    if (resolved.error) return { skipped: resolved.error };
    if (kind.optional && resolved.answer.status === 422)
      return { skipped: `not offered yet (${describe(resolved.answer)})` };
    return { error: describe(resolved.answer) };
  }
  const budgetEnds = performance.now() + settings.kindBudgetSeconds * 1000;
  let repetitions = settings.repetitions;
  let note: string | undefined;
  // Slow means every warm-up so far was slow, two of them at least (the first answer after seeding reads cold
  // pages): one slow outlier does not cut the samples of a fast kind.
  const warmups = Math.max(1, settings.warmups);
  let fastest = Infinity;
  for (let warmup = 1; warmup <= warmups; warmup += 1) {
    const answer = await get(baseUrl, resolved.path, authorization);
    if (kind.optional && answer.status === 422) return { skipped: `not offered yet (${describe(answer)})` };
    if (answer.status < 200 || answer.status > 299) return { error: describe(answer) };
    fastest = Math.min(fastest, answer.ms);
    if (fastest > settings.slowMs && (warmup >= 2 || warmups === 1)) {
      repetitions = Math.min(repetitions, settings.slowRepetitions);
      note = `slower than ${settings.slowMs} ms: ${warmup} warm-up(s), ${repetitions} repetitions`;
      break;
    }
  }
  const samples: number[] = [];
  while (samples.length < repetitions && (samples.length < 3 || performance.now() < budgetEnds)) {
    const answer = await get(baseUrl, resolved.path, authorization);
    if (answer.status < 200 || answer.status > 299)
      return { error: `${describe(answer)} (after ${samples.length} good answers)` };
    samples.push(answer.ms);
  }
  if (samples.length < repetitions)
    note = `${note ? `${note}; ` : ''}stopped at the ${settings.kindBudgetSeconds} s budget after ${samples.length} samples`;
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    figures: {
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      samples: samples.length,
      ...(note ? { note } : {}),
    },
  };
}
