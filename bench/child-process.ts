import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

// A server under test, run as a child process so it does not share the harness's event loop or core.
// Every child is registered so the harness kills it on any exit path, normal or not.

const running = new Set<ChildProcess>();

/** Kills every child still running (SIGKILL: this runs on the way out, nothing may wait). */
export function killAllChildren(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  running.clear();
}

export interface StartChildOptions {
  /** Plain JavaScript entry (see compileEntries): run by node with no loader, as production runs. */
  script: string;
  env: NodeJS.ProcessEnv;
  /** File descriptor the child's stdout goes to (the service's log file), or 'ignore'. */
  stdout: number | 'ignore';
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  startTimeoutMs: number;
}

/** The last 4,000 characters a child wrote to stderr, as they stand (bounded: the tail is what explains a failure). */
function stderrTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4000);
  });
  return () => tail;
}

/**
 * Runs a plain JavaScript entry that does one job and sends its answer over IPC: resolves with that message once
 * the child has exited and its channel closed; rejects if it exits without one, fails to start, or takes longer
 * than `timeoutMs`.
 */
export function runForAnswer<T>(name: string, script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<T> {
  const child = fork(script, [], { env, cwd: resolve(__dirname, '..'), stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  running.add(child);
  const stderr = stderrTail(child);
  return new Promise((resolve, reject) => {
    let answer: { value: T } | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const fail = (why: string) => reject(new Error(`${name}: ${why}${stderr() ? `\n${stderr()}` : ''}`));
    child.once('message', (message) => {
      answer = { value: message as T };
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      fail(`could not run (${error.message})`);
    });
    // 'close', not 'exit': the last IPC message may be read after the exit is seen, never after the close.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      if (answer && code === 0) resolve(answer.value);
      else if (timedOut) fail(`no answer within ${timeoutMs} ms`);
      else fail(`exited with no answer (code ${code}, signal ${signal})`);
    });
  });
}

export class ServerProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    private readonly stderr: () => string,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  /** Starts the child and resolves with its port once it says it listens; rejects on exit or timeout. */
  static start(name: string, options: StartChildOptions): Promise<ServerProcess> {
    const child = fork(options.script, [], {
      execArgv: options.nodeFlags ?? [],
      env: options.env,
      cwd: resolve(__dirname, '..'), // the repository: node_modules resolves from the built service's files
      stdio: ['ignore', options.stdout, 'pipe', 'ipc'],
    });
    running.add(child);
    const stderr = stderrTail(child);
    child.once('exit', () => running.delete(child));

    return new Promise((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`${name}: ${why}${stderr() ? `\n${stderr()}` : ''}`));
      };
      const timer = setTimeout(() => fail(`not listening after ${options.startTimeoutMs} ms`), options.startTimeoutMs);
      child.once('exit', (code, signal) => fail(`exited during start-up (code ${code}, signal ${signal})`));
      child.once('message', (message: { ready?: boolean; port?: number }) => {
        if (!message.ready || typeof message.port !== 'number') return fail('sent an unexpected start-up message');
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.once('exit', () => running.delete(child));
        resolve(new ServerProcess(child, message.port, stderr));
      });
    });
  }

  /** Resident set now and at its peak (VmRSS / VmHWM), in MiB; undefined off Linux. */
  memory(): { rssMiB: number; peakRssMiB: number } | undefined {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024 };
    } catch {
      return undefined;
    }
  }

  /**
   * CPU time the whole process (all threads: JS, GC, libuv pool) has used, in ms, and the part of it in the
   * kernel (page faults, memory given back, sockets); undefined off Linux.
   */
  cpuMs(): { totalMs: number; systemMs: number } | undefined {
    try {
      // Fields after the command name (which is in parentheses and may hold spaces): utime is the 12th, stime the 13th.
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (ticks: string | undefined) => (Number(ticks) * 1000) / CLOCK_TICKS_PER_SECOND;
      return { totalMs: ms(fields[11]) + ms(fields[12]), systemMs: ms(fields[12]) };
    } catch {
      return undefined;
    }
  }

  /** SIGTERM, then SIGKILL if it has not gone within `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  get lastStderr(): string {
    return this.stderr();
  }
}

// USER_HZ is 100 on every Linux ABI Node supports.
const CLOCK_TICKS_PER_SECOND = 100;
