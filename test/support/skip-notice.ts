/**
 * Says once, in one plain line, that a suite is skipped here and why (a tool this machine lacks). Jest would
 * wrap a console.warn in a code frame; a line on stderr is all a reader needs.
 */
export function skipNotice(line: string): void {
  process.stderr.write(`${line}\n`);
}
