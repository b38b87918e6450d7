import pino from 'pino';

// Where log lines go in production and test: stdout, written once per event-loop turn instead of once per
// line. Under load one turn finishes many requests, and with one write(2) per request log line that system
// call was the largest cost the service adds per request on top of Koa (docs/performance.md). Lines are
// joined as they come and written synchronously at the end of the turn (setImmediate), so at low traffic a
// line still appears at once, and the order of lines is kept.
//
// What can be lost: only lines of the current turn if the process is killed outright (SIGKILL, OOM kill).
// An ordinary exit, a crash through an uncaught exception included, runs the 'exit' hook below, which
// writes them out; logger.flush() (used at shutdown) writes them too.

interface Destination {
  write(line: string): void;
  flush(done?: (error?: Error) => void): void;
  flushSync(): void;
}

let stdout: Destination | undefined;

/** The process's one stdout destination (every logger shares it, so lines stay in order). */
export function turnBatchedStdout(): Destination {
  stdout ??= turnBatched(1);
  return stdout;
}

/** Lines joined per event-loop turn, then one synchronous write (sonic-boom: retries EAGAIN on pipes). */
function turnBatched(fd: number): Destination {
  const out = pino.destination({ dest: fd, sync: true });
  let pending: string[] = [];
  let scheduled = false;
  const writeOut = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0] : pending.join('');
    pending = [];
    out.write(text);
  };
  const destination: Destination = {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(writeOut);
      }
    },
    flush(done) {
      writeOut();
      done?.();
    },
    flushSync: writeOut,
  };
  process.once('exit', writeOut);
  return destination;
}
