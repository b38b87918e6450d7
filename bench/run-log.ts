import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeFileSync } from 'node:fs';

// The log file every server writes to (the service and the peer stacks, a line per request as in production).
// The harness empties it after each load run, so request lines stay in the page cache and never reach the
// disk: a run writes ~500 MB of them, and the kernel writing that back every 30 s took the 2-core machine in
// bursts of a second or two, slowing whichever server was being measured (docs/performance.md, "Method").

/** How much of the lines after the last emptying the kept log holds: a failed run's last lines. */
const TAIL_BYTES = 256 * 1024;
/** The start-up lines kept are bounded the same way. */
const HEAD_BYTES = 256 * 1024;

export class RunLog {
  /** Opened for appending: every writer appends at the end, after an emptying too. */
  readonly fd: number;
  private head = '';
  private dropped = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a+');
  }

  /** Keeps what the servers wrote so far (start-up, the checks before the load) for the log left behind. */
  keepHead(): void {
    const size = fstatSync(this.fd).size;
    this.head = this.read(0, HEAD_BYTES);
    this.dropped += size - Buffer.byteLength(this.head);
    ftruncateSync(this.fd, 0);
  }

  /** Drops the lines written since the last call: the request lines of a load run. */
  empty(): void {
    this.dropped += fstatSync(this.fd).size;
    ftruncateSync(this.fd, 0);
  }

  /** Leaves the kept start-up lines, the count of bytes dropped and the last lines in the file, and closes it. */
  close(): void {
    const size = fstatSync(this.fd).size;
    const tail = this.read(Math.max(0, size - TAIL_BYTES), TAIL_BYTES);
    const dropped = this.dropped + size - Buffer.byteLength(tail);
    closeSync(this.fd);
    writeFileSync(this.path, `${this.head}[bench: ${dropped} bytes of request lines not kept]\n${tail}`);
  }

  private read(position: number, length: number): string {
    const buffer = Buffer.alloc(length);
    return buffer.subarray(0, readSync(this.fd, buffer, 0, length, position)).toString('utf8');
  }
}
