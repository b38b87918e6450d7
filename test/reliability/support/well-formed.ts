import { envelopeProblem, type Answer } from '../../../scripts/reliability/lib/envelope-check';

export type { Answer };

/**
 * Throws (so fast-check shrinks and reports the input) when the answer is a 5xx or breaks the envelope
 * rules. The rules themselves are shared with the soak and fault drivers (scripts/reliability/lib).
 */
export function assertWellFormed(res: Answer, method: string): void {
  const problem = res.status >= 500 ? 'a server error' : envelopeProblem(res, method);
  if (problem)
    throw new Error(
      `${method} answered ${res.status} with ${problem}: ${JSON.stringify(res.text ?? '').slice(0, 300)}`,
    );
}
