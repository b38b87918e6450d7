import { spawnSync } from 'node:child_process';
import { KEEP_CODE_FLAG } from '../../src/lifecycle/idle-code-retention';

// The flag is V8's, not Node's, and V8 ignores a flag it does not know: should a Node upgrade bring a V8 that
// renamed or dropped it, production would lose it without a word. This is the word.

describe('keeping optimised code through an idle spell', () => {
  it("sets a flag this node's V8 has", () => {
    const listed = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    const name = KEEP_CODE_FLAG.replace(/^--no-/, '--');
    expect(listed).toMatch(new RegExp(`^\\s*${name}\\s`, 'm'));
  });

  it('is taken by V8 when set at run time', () => {
    // A flag V8 does not know makes it print a warning on stderr; one it takes, nothing.
    const script = `require('node:v8').setFlagsFromString(${JSON.stringify(KEEP_CODE_FLAG)})`;
    const unknown = `require('node:v8').setFlagsFromString('--no-such-flag-at-all')`;
    const run = (code: string) => spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
    expect(run(unknown).stderr).not.toBe('');
    expect(run(script).stderr).toBe('');
  });
});
