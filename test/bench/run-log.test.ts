import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunLog } from '../../bench/run-log';

// The bench's log file: every server appends to it, the harness empties it after each load run, and what is left
// at the end is the start-up lines, a count of what was dropped and the last lines.

describe('the bench run log', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'run-log-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the start-up lines and the last ones, and counts the request lines it dropped', () => {
    const log = new RunLog(join(dir, 'service.log'));
    writeSync(log.fd, 'listening\n');
    log.keepHead();
    writeSync(log.fd, 'request 1\n'.repeat(100));
    log.empty();
    writeSync(log.fd, 'request 2\n'.repeat(50));
    log.empty();
    writeSync(log.fd, 'stopping\n');
    log.close();
    expect(readFileSync(join(dir, 'service.log'), 'utf8')).toBe(
      'listening\n[bench: 1500 bytes of request lines not kept]\nstopping\n',
    );
  });

  it('lets a writer in another process append at the start after an emptying, leaving no hole', () => {
    const path = join(dir, 'service.log');
    const log = new RunLog(path);
    const child = (text: string) =>
      spawnSync(process.execPath, ['-e', `require('fs').writeSync(1, ${JSON.stringify(text)})`], {
        stdio: ['ignore', log.fd, 'inherit'],
      });
    child('a line a server wrote during a run\n');
    log.empty();
    child('next\n');
    expect(statSync(path).size).toBe('next\n'.length);
    log.close();
  });

  it('keeps only the last 256 KiB of what a failed run left', () => {
    const log = new RunLog(join(dir, 'service.log'));
    log.keepHead();
    writeSync(log.fd, 'x'.repeat(300 * 1024));
    writeSync(log.fd, '\nthe error\n');
    log.close();
    const kept = readFileSync(join(dir, 'service.log'), 'utf8');
    expect(kept.startsWith(`[bench: ${300 * 1024 + 11 - 256 * 1024} bytes of request lines not kept]\n`)).toBe(true);
    expect(kept.endsWith('\nthe error\n')).toBe(true);
    expect(kept.length).toBeLessThan(257 * 1024);
  });
});
