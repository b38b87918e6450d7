import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { productionRuntime } from '../../../bench/production-env';
import { sleep, spawnChild, waitForExit } from './children';
import { freePort } from './free-port';
import { send } from './http';
import { DEMO } from './traffic';

// The service as it runs in production: the compiled build (dist/server.js, what `npm start` runs) in
// its own process, NODE_ENV=production with freshly generated strong secrets. Only what a driver needs
// differs from a real deployment, and each difference is stated where it is set.

export const ROOT = resolve(__dirname, '..', '..', '..');

export class ServiceProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly logFile: string,
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * `measurable`: the soak's memory probe (lib/gc-probe.cjs) is preloaded with --expose-gc and an IPC
   * channel, so measureAfterGc() works; the service code itself is the production build either way.
   */
  static async start(
    env: Record<string, string>,
    logFile: string,
    options: { measurable?: boolean } = {},
  ): Promise<ServiceProcess> {
    const entry = join(ROOT, 'dist', 'server.js');
    if (!existsSync(entry)) throw new Error('dist/server.js is missing: run `npm run build` (make build) first');
    const port = await freePort();
    const log = openSync(logFile, 'a');
    const probe = options.measurable ? ['--expose-gc', '--require', join(__dirname, 'gc-probe.cjs')] : [];
    const child = spawnChild(process.execPath, [...probe, entry], {
      cwd: ROOT,
      stdio: options.measurable ? ['ignore', log, log, 'ipc'] : ['ignore', log, log],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        NODE_ENV: 'production',
        PORT: String(port),
        JWT_SECRET: randomBytes(48).toString('base64url'),
        REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64url'),
        // Plain HTTP on loopback: the Secure attribute would only tell a browser not to send the cookie;
        // the drivers send it themselves either way, so this is the production default made explicit.
        COOKIE_SECURE: 'false',
        // Every virtual user logs in and refreshes many times: the production limit (10 per 15 min per IP)
        // would turn the run into a 429 test. The limit itself is tested in the auth module's suite.
        AUTH_RATE_LIMIT_MAX: '1000000000',
        // The same for the per-user request budget: a few virtual users send all of the traffic.
        USER_RATE_LIMIT_MAX: '1000000000',
        // The traffic mixes wrong-password logins for the demo user into its own logins, from four
        // addresses: per-account throttling would refuse the right password too. Tested in the auth suite.
        LOGIN_THROTTLE_FAILURES: '1000',
        LOGIN_THROTTLE_ACCOUNT_FAILURES: '1000000',
        LOG_LEVEL: 'warn',
        DEMO_USER_PASSWORD: DEMO.password,
        // The production image's malloc settings and node flags (Dockerfile), so memory figures are the image's.
        ...productionRuntime(),
        ...env,
      },
    });
    writeFileSync(`${logFile}.pid`, `${child.pid}\n`); // for CI's backstop clean-up
    const service = new ServiceProcess(child, port, logFile);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (!service.alive)
        throw new Error(
          `the service exited during start-up (code ${child.exitCode}, signal ${child.signalCode}); log: ${logFile}\n${service.logTail()}`,
        );
      const ready = await send({ port }, { method: 'GET', path: '/health/ready' }, 2_000);
      if (ready.status === 200) return service;
      await sleep(200);
    }
    child.kill('SIGKILL');
    throw new Error(`the service was not ready within 60 s; log: ${logFile}\n${service.logTail()}`);
  }

  /** Resident set size of the server process in KiB (VmRSS in /proc/<pid>/status). */
  rssKiB(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
  }

  /** A full GC in the service, then its memory in bytes (needs `measurable` at start). */
  measureAfterGc(timeoutMs = 10_000): Promise<{
    rss: number;
    heapUsed: number;
    heapTotal: number;
    external: number;
    arrayBuffers: number;
    spaces: Record<string, number>;
  }> {
    const child = this.child;
    if (!child.send) return Promise.reject(new Error('the service was not started measurable'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        reject(new Error(`no memory figures from the service within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (message: {
        measured?: {
          rss: number;
          heapUsed: number;
          heapTotal: number;
          external: number;
          arrayBuffers: number;
          spaces: Record<string, number>;
        };
      }) => {
        if (!message?.measured) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(message.measured);
      };
      child.on('message', onMessage);
      child.send!({ measure: true });
    });
  }

  logTail(chars = 3_000): string {
    try {
      return readFileSync(this.logFile, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  }

  /** SIGTERM, then the exit code and how long it took; SIGKILL and a rejection past `timeoutMs`. */
  async terminate(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const started = Date.now();
    this.child.kill('SIGTERM');
    try {
      const exit = await waitForExit(this.child, timeoutMs);
      return { ...exit, ms: Date.now() - started };
    } catch (error) {
      this.child.kill('SIGKILL');
      throw error;
    }
  }
}
