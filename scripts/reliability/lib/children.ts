import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

// Every process a driver starts (the service, PostgreSQL's postmaster via pg_ctl, redis-server) is
// registered here and killed on any way out: normal end, exception, Ctrl-C, SIGTERM from CI's trap.

const running = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];

/** Spawns a child that is killed (SIGKILL) if this process ends while it still runs. */
export function spawnChild(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
  return child;
}

/** A synchronous cleanup run on exit (e.g. stopping a database started through pg_ctl, removing a temp dir). */
export function onExit(cleanup: () => void): void {
  cleanups.push(cleanup);
}

function killAll(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  running.clear();
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // on the way out: carry on with the rest
    }
  }
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

/** Resolves with the exit code, or rejects after `timeoutMs` (the child is left to the caller). */
export function waitForExit(
  child: ChildProcess,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`process ${child.pid} still running after ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs a driver's main function and exits with its code; a thrown error is printed and exits 1. */
export function runDriver(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      process.exit(1);
    },
  );
}
