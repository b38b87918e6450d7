import { envelopeProblem } from './envelope-check';
import type { Record_ } from './traffic';

// Counting what came back, by class, and keeping examples of every kind of failure for the report.

export interface Verdict {
  /** A failure's class, or undefined when the answer is what this phase allows. */
  failure?: string;
}

export class Stats {
  requests = 0;
  readonly byClass = new Map<string, number>();
  readonly failures = new Map<string, number>();
  private readonly examples: string[] = [];
  private readonly latencies: number[] = [];
  private latencySeen = 0;
  maxLatency = 0;

  private bump(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  /**
   * Records one request. `allowed` adds statuses this phase accepts besides the action's own expected ones
   * (e.g. 503 during a database outage); a 500 is never allowed, nor a missing or malformed answer.
   */
  record(record: Record_, allowed: readonly number[] = []): string | undefined {
    const { outcome, action, expected } = record;
    this.requests += 1;
    this.sampleLatency(outcome.ms);
    let failure: string | undefined;
    if (outcome.status === undefined) {
      this.bump(this.byClass, `no answer (${outcome.error})`);
      failure = `no answer: ${outcome.error}`;
    } else {
      this.bump(this.byClass, `${Math.floor(outcome.status / 100)}xx`);
      const problem = envelopeProblem({ status: outcome.status, headers: outcome.headers, text: outcome.text }, 'POST');
      if (problem) failure = `malformed answer: ${problem}`;
      else if (outcome.status >= 500 && !allowed.includes(outcome.status)) failure = `server error ${outcome.status}`;
      else if (!expected.includes(outcome.status) && !allowed.includes(outcome.status))
        failure = `unexpected status ${outcome.status} for ${action}`;
    }
    if (failure)
      this.fail(
        failure,
        `${action} ${record.requestId}: ${outcome.status ?? outcome.error} ${(outcome.text ?? '').slice(0, 160)}`,
      );
    return failure;
  }

  fail(kind: string, example: string): void {
    this.bump(this.failures, kind);
    if (this.examples.length < 10) this.examples.push(example);
  }

  get failureCount(): number {
    return [...this.failures.values()].reduce((sum, n) => sum + n, 0);
  }

  private sampleLatency(ms: number): void {
    // Reservoir sampling: bounded memory however long the run.
    this.latencySeen += 1;
    this.maxLatency = Math.max(this.maxLatency, ms);
    if (this.latencies.length < 50_000) this.latencies.push(ms);
    else {
      const slot = Math.floor(Math.random() * this.latencySeen);
      if (slot < this.latencies.length) this.latencies[slot] = ms;
    }
  }

  percentile(p: number): number {
    if (!this.latencies.length) return 0;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  }

  summary(): string {
    const classes = [...this.byClass.entries()]
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    const failures = [...this.failures.entries()].map(([k, v]) => `${k}=${v}`).join(', ') || 'none';
    const lines = [
      `requests ${this.requests} | ${classes}`,
      `failures ${this.failureCount}: ${failures}`,
      `latency p50 ${this.percentile(50)} ms, p99 ${this.percentile(99)} ms, max ${this.maxLatency} ms`,
    ];
    if (this.examples.length) lines.push('examples:', ...this.examples.map((e) => `  ${e}`));
    return lines.join('\n');
  }
}
