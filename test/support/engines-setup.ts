import { testEngines } from './engines';

// Jest's global setup: one line per engine this run skips, and why, before any suite runs. The suites say
// nothing of it themselves (each would print it again, with a code frame around it).
export default function reportSkippedEngines(): void {
  const skipped = testEngines().filter((target) => target.skipReason);
  for (const target of skipped) process.stdout.write(`[engines] ${target.engine}: SKIPPED — ${target.skipReason}\n`);
}
