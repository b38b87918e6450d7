import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

// Production log lines are written once per event-loop turn (src/log-destination.ts). These run a real
// logger in a child process and read its stdout: every line arrives, in order, also when the process
// exits or crashes in the same turn as the lines were logged.

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

async function stdoutOf(script: string): Promise<string[]> {
  const program = `const { createLogger } = require('./src/logger'); const logger = createLogger({ env: 'production', logLevel: 'info' }); ${script}`;
  const { stdout } = await run(process.execPath, ['--require', 'tsx/cjs', '-e', program], {
    cwd: root,
    timeout: 30_000,
  }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }), // the crash cases exit non-zero on purpose
  );
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

describe('log lines batched per event-loop turn', () => {
  it('writes lines of several turns, in order', async () => {
    expect(
      await stdoutOf(
        `logger.info('a'); logger.info('b'); setImmediate(() => { logger.info('c'); setTimeout(() => logger.info('d'), 20); });`,
      ),
    ).toEqual(['a', 'b', 'c', 'd']);
  });

  it('writes the pending lines when the process exits in the same turn', async () => {
    expect(await stdoutOf(`logger.info('before exit'); logger.warn('last'); process.exit(3);`)).toEqual([
      'before exit',
      'last',
    ]);
  });

  it('writes the pending lines when an uncaught exception ends the process', async () => {
    expect(
      await stdoutOf(`setTimeout(() => { logger.info('one'); logger.error('two'); throw new Error('boom'); }, 10);`),
    ).toEqual(['one', 'two']);
  });

  it('logger.flush() writes at once, before the turn ends', async () => {
    const program = `logger.info('flushed'); logger.flush(); require('node:fs').writeSync(1, JSON.stringify({ msg: 'raw write after flush' }) + '\\n'); process.exitCode = 0;`;
    expect(await stdoutOf(program)).toEqual(['flushed', 'raw write after flush']);
  });
});
