// The dependency audit policy (docs/releases.md, "Dependency audit"), applied to `npm audit --json`:
// high or critical advisories on production dependencies fail the build; low and moderate are printed;
// an advisory service that does not answer is a printed warning, not a failure.
// Usage: tsx scripts/audit-policy.ts <report.json>   (scripts/ci/audit.sh)
import { readFileSync } from 'node:fs';

interface Report {
  message?: string;
  error?: { summary?: string };
  metadata?: { vulnerabilities?: Record<string, number> };
  vulnerabilities?: Record<string, { severity: string; via: unknown[] }>;
}

export function judge(report: Report): { failed: boolean; lines: string[] } {
  const counts = report.metadata?.vulnerabilities;
  if (!counts) {
    const why = (report.message ?? report.error?.summary ?? 'no report').split('\n')[0];
    return {
      failed: false,
      lines: [`audit: WARNING: the advisory service did not answer (${why}): production dependencies not checked here`],
    };
  }
  const lines = Object.entries(report.vulnerabilities ?? {}).map(
    ([name, entry]) =>
      `  ${entry.severity}: ${name} (${entry.via.map((via) => (typeof via === 'string' ? via : ((via as { title?: string }).title ?? '?'))).join('; ')})`,
  );
  const summary = ['critical', 'high', 'moderate', 'low'].map((level) => `${counts[level] ?? 0} ${level}`).join(', ');
  const failed = (counts.critical ?? 0) + (counts.high ?? 0) > 0;
  lines.push(
    failed
      ? `audit: FAIL: ${summary} in production dependencies`
      : `audit: ${summary} in production dependencies: passes (high and critical fail the build)`,
  );
  return { failed, lines };
}

if (require.main === module) {
  const text = readFileSync(process.argv[2] ?? '', 'utf8');
  const { failed, lines } = judge(text.trim() ? (JSON.parse(text) as Report) : {});
  console.log(lines.join('\n'));
  process.exitCode = failed ? 1 : 0;
}
