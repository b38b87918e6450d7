import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { onExit, sleep } from './children';

// A Compose stack a driver starts and always removes (containers, network, volumes), on any way out.
// Commands run asynchronously, so traffic keeps flowing while a container stops or starts.

/** `docker compose` when the v2 plugin is there, else `docker-compose` (v1); COMPOSE overrides. */
function composeCommand(): string[] {
  if (process.env.COMPOSE) return process.env.COMPOSE.split(' ').filter(Boolean);
  try {
    execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' });
    return ['docker', 'compose'];
  } catch {
    return ['docker-compose'];
  }
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout + stderr);
    });
  });
}

/** A secret as the service wants it: 48 random bytes, base64url. */
export const secret = () => randomBytes(48).toString('base64url');

export class ComposeStack {
  private readonly command = composeCommand();
  private env: NodeJS.ProcessEnv;

  constructor(
    readonly file: string,
    readonly project: string,
    env: Record<string, string>,
  ) {
    this.env = { ...process.env, ...env };
    onExit(() => this.removeNow());
  }

  get client(): string {
    return this.command.join(' ');
  }

  /** Changes variables the Compose file reads; the next `up` recreates the services they touch. */
  setEnv(changes: Record<string, string>): void {
    this.env = { ...this.env, ...changes };
  }

  compose(args: readonly string[], timeoutMs = 300_000): Promise<string> {
    const [command, ...base] = this.command;
    return run(command, [...base, '-p', this.project, '-f', this.file, ...args], this.env, timeoutMs);
  }

  docker(args: readonly string[], timeoutMs = 120_000): Promise<string> {
    return run('docker', args, this.env, timeoutMs);
  }

  async containerId(service: string): Promise<string> {
    const id = (await this.compose(['ps', '-q', service])).trim().split('\n')[0];
    if (!/^[0-9a-f]{12,64}$/.test(id)) throw new Error(`no container for ${service}: ${id}`);
    return id;
  }

  async inspect(id: string, format: string): Promise<string> {
    return (await this.docker(['inspect', '-f', format, id])).trim();
  }

  /** Removes everything the stack made; synchronous, so it also runs from an exit handler. */
  removeNow(): void {
    const [command, ...base] = this.command;
    try {
      execFileSync(
        command,
        [...base, '-p', this.project, '-f', this.file, 'down', '-v', '--remove-orphans', '-t', '5'],
        {
          env: this.env,
          stdio: 'ignore',
          timeout: 120_000,
        },
      );
    } catch {
      // already gone, or Docker itself is gone: nothing more to do here
    }
  }
}

/** One row of HAProxy's CSV statistics (`/stats;csv`), by column name. */
export type HaproxyRow = Record<string, string>;

export function haproxyStats(port: number): Promise<HaproxyRow[]> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: '/stats;csv', timeout: 3_000 }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += String(chunk)));
      res.on('end', () => {
        const [head, ...lines] = text.trim().split('\n');
        const columns = head.replace(/^# /, '').split(',');
        resolve(lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [columns[i], value]))));
      });
    });
    req.on('timeout', () => req.destroy(new Error('stats timeout')));
    req.on('error', reject);
  });
}

/** The state HAProxy gives each server of a backend: UP, DOWN, "UP 1/2" (rising), … */
export async function serverStates(port: number, backend: string): Promise<Map<string, string>> {
  const rows = await haproxyStats(port);
  return new Map(
    rows
      .filter((row) => row.pxname === backend && !['FRONTEND', 'BACKEND'].includes(row.svname))
      .map((row) => [row.svname, row.status]),
  );
}

/** Polls until `test` holds (true), or throws after `timeoutMs` with `what` in the message. */
export async function waitFor(what: string, timeoutMs: number, test: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      if (await test()) return Date.now() - started;
    } catch {
      // not reachable yet: keep polling
    }
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}
