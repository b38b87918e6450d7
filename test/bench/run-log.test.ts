import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunLog } from '../../bench/run-log';

// The bench's log file: every server appends to it, the harness empties it after each load run, and what is left
// at the end is the start-up lines, a count of what was dropped, a failed run's last lines and the last lines.

describe('the bench run log', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'run-log-'));
    path = join(dir, 'service.log');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the start-up lines and the last ones, and counts the lines it dropped', () => {
    const log = new RunLog(path);
    writeSync(log.fd, 'listening\n');
    log.keepHead();
    writeSync(log.fd, 'request 1\n'.repeat(100));
    log.empty();
    expect(readFileSync(path, 'utf8')).toBe('listening\n'); // on disk at every moment, should the harness be killed
    writeSync(log.fd, 'request 2\n'.repeat(50));
    log.empty();
    writeSync(log.fd, 'stopping\n');
    log.close();
    expect(readFileSync(path, 'utf8')).toBe(
      "listening\n[bench: 1500 bytes of the load runs' lines not kept]\nstopping\n",
    );
  });

  it('keeps the last lines of a run that had errors', () => {
    const log = new RunLog(path);
    log.keepHead();
    writeSync(log.fd, 'request\n'.repeat(10));
    log.empty();
    writeSync(log.fd, 'request\nthe error\n');
    log.empty(true);
    log.close();
    expect(readFileSync(path, 'utf8')).toBe(
      "[bench: 80 bytes of the load runs' lines not kept]\n" +
        '[bench: a load run with errors ended with these lines]\nrequest\nthe error\n',
    );
  });

  it('lets a writer in another process append after the head once emptied, leaving no hole', () => {
    const log = new RunLog(path);
    const child = (text: string) =>
      spawnSync(process.execPath, ['-e', `require('fs').writeSync(1, ${JSON.stringify(text)})`], {
        stdio: ['ignore', log.fd, 'inherit'],
      });
    child('start-up\n');
    log.keepHead();
    child('a line a server wrote during a run\n');
    log.empty();
    child('next\n');
    expect(statSync(path).size).toBe('start-up\nnext\n'.length);
    log.close();
  });

  it('keeps whole lines only, from the last 256 KiB of what the last run left', () => {
    const log = new RunLog(path);
    log.keepHead();
    const line = `${'é'.repeat(99)}\n`; // 199 bytes: a cut may fall inside a character, never in the kept text
    const lines = Math.ceil((300 * 1024) / line.length);
    for (let i = 0; i < lines; i++) writeSync(log.fd, line);
    writeSync(log.fd, 'the error\n');
    log.close();
    const kept = readFileSync(path, 'utf8');
    const [marker, ...rest] = kept.split('\n');
    const keptBytes = Buffer.byteLength(rest.join('\n'));
    expect(marker).toBe(`[bench: ${lines * 199 + 10 - keptBytes} bytes of the load runs' lines not kept]`);
    expect(keptBytes).toBeLessThanOrEqual(256 * 1024);
    expect(rest.slice(0, -2).every((text) => text === 'é'.repeat(99))).toBe(true);
    expect(kept.endsWith('\nthe error\n')).toBe(true);
  });
});
