import { judge } from '../../scripts/audit-policy';

// The dependency audit policy on the three kinds of `npm audit --json` report: findings at each level, and
// no answer from the advisory service (what this machine's registry gives: 405 on the bulk endpoint).

const report = (counts: Record<string, number>, vulnerabilities = {}) => ({
  metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts } },
  vulnerabilities,
});

describe('dependency audit policy', () => {
  it('fails on a high or critical advisory, naming it', () => {
    const verdict = judge(
      report({ high: 1 }, { 'some-lib': { severity: 'high', via: [{ title: 'Prototype pollution' }] } }),
    );
    expect(verdict.failed).toBe(true);
    expect(verdict.lines).toEqual([
      '  high: some-lib (Prototype pollution)',
      'audit: FAIL: 0 critical, 1 high, 0 moderate, 0 low in production dependencies',
    ]);
    expect(judge(report({ critical: 2 })).failed).toBe(true);
  });

  it('passes with low and moderate ones, printing them', () => {
    const verdict = judge(report({ moderate: 1, low: 3 }, { other: { severity: 'moderate', via: ['some-lib'] } }));
    expect(verdict.failed).toBe(false);
    expect(verdict.lines[0]).toBe('  moderate: other (some-lib)');
  });

  it('warns, without failing, when the advisory service does not answer', () => {
    const verdict = judge({
      message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk',
    });
    expect(verdict).toEqual({
      failed: false,
      lines: [expect.stringMatching(/^audit: WARNING: the advisory service did not answer \(405 Method Not Allowed/)],
    });
    expect(judge({}).failed).toBe(false);
  });
});
