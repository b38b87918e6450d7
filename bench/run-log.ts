import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

// The log file every server writes to (the service and the peer stacks, a line per request as in production).
// The harness empties it after each load run, so request lines stay in the page cache and do not reach the
// disk (the kernel writes back what has been dirty for 30 s; a run is shorter): a run writes ~500 MB of them,
// and writing that back took the 2-core machine in bursts of a second or two, slowing whichever server was
// being measured (docs/performance.md, "Where the dips came from").

/** How much of a run's last lines the file keeps: those of a run that had errors, and those after the last run. */
const TAIL_BYTES = 256 * 1024;

export class RunLog {
  /** Opened for appending: every writer appends at the end, after an emptying too. */
  readonly fd: number;
  /** The start-up lines: the file is emptied back to them, so they stay on disk even if the harness is killed. */
  private headBytes = 0;
  private dropped = 0;
  private readonly kept: Buffer[] = [];

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a+');
  }

  /** What the servers wrote so far (start-up, the checks before the load) stays in the file. */
  keepHead(): void {
    this.headBytes = fstatSync(this.fd).size;
  }

  /** Drops the lines written since the last call (a load run's); with `failed`, keeps their last ones first. */
  empty(failed = false): void {
    const size = fstatSync(this.fd).size;
    if (failed) {
      const tail = this.tail(size);
      this.kept.push(Buffer.from('[bench: a load run with errors ended with these lines]\n'), tail);
      this.dropped -= tail.length;
    }
    this.dropped += size - this.headBytes;
    ftruncateSync(this.fd, this.headBytes);
  }

  /** Leaves the start-up lines, a count of the bytes not kept, the kept lines and the last ones, and closes. */
  close(): void {
    const size = fstatSync(this.fd).size;
    const tail = this.tail(size);
    const dropped = this.dropped + size - this.headBytes - tail.length;
    ftruncateSync(this.fd, this.headBytes);
    const marker = Buffer.from(`[bench: ${dropped} bytes of the load runs' lines not kept]\n`);
    writeSync(this.fd, Buffer.concat([marker, ...this.kept, tail]));
    closeSync(this.fd);
  }

  /** The whole lines among the last TAIL_BYTES written after the head. */
  private tail(size: number): Buffer {
    const start = Math.max(this.headBytes, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    const read = buffer.subarray(0, readSync(this.fd, buffer, 0, buffer.length, start));
    if (start === this.headBytes) return read;
    const firstLineEnd = read.indexOf('\n');
    return firstLineEnd < 0 ? Buffer.alloc(0) : read.subarray(firstLineEnd + 1);
  }
}
