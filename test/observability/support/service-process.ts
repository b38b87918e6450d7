import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { TEST_SECRETS } from '../../support/test-app';

// The service as `npm start` runs it (src/server.ts, the real entry point, through tsx) in a child
// process: OpenTelemetry instruments modules through Node's require, which Jest's own module registry
// bypasses, so tracing can only be observed in a process of its own.

const ROOT = join(__dirname, '..', '..', '..');

export interface ServiceProcess {
  port: number;
  /** Every JSON line the service wrote to stdout so far (its log lines). */
  lines: Record<string, unknown>[];
  /** The module files loaded through require so far. */
  loadedModules(): Promise<string[]>;
  stop(): Promise<number | null>;
}

/** The first line from index `from` on that `pick` finds something in, waiting for it to be written. */
function waitFor<T>(
  what: string,
  lines: Record<string, unknown>[],
  from: number,
  child: ChildProcess,
  pick: (line: Record<string, unknown>) => T | undefined,
  timeoutMs: number,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      for (const line of lines.slice(from)) {
        const found = pick(line);
        if (found !== undefined) {
          clearInterval(timer);
          resolve(found);
          return;
        }
      }
      if (child.exitCode !== null || Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(
          new Error(
            `service process: no ${what} (exit code ${child.exitCode}); stdout: ${JSON.stringify(lines).slice(0, 2000)}`,
          ),
        );
      }
    }, 20);
  });
}

export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_') && name !== 'METRICS_PORT'),
  );
  const child = spawn(
    process.execPath,
    ['--require', join(__dirname, 'report-loaded-modules.cjs'), '--import', 'tsx', join(ROOT, 'src', 'server.ts')],
    {
      cwd: ROOT,
      env: { ...inherited, NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: '0', ...TEST_SECRETS, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      lines.push({ text: line });
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let port: number;
  try {
    port = await waitFor(
      'listening line',
      lines,
      0,
      child,
      (line) => (line.msg === 'listening' ? Number(line.port) : undefined),
      30_000,
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\nstderr: ${stderr.slice(0, 2000)}`, { cause: error });
  }
  return {
    port,
    lines,
    loadedModules() {
      const from = lines.length;
      child.kill('SIGUSR2');
      return waitFor('module list', lines, from, child, (line) => line.loadedModules as string[] | undefined, 5_000);
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
