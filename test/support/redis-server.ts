import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/reliability/lib/free-port';

// A throw-away redis-server (Debian's `redis-server` package) for the tests: loopback only, a free port,
// a temporary directory, no persistence. Tests that need it skip with a printed reason when it is absent.

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The redis-server binary, or undefined when it is not installed (`apt-get install -y redis-server`). */
export function findRedisServer(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

/** Resolves once the server answers PING (bounded: 10 s). */
async function waitForPong(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    const pong = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.setTimeout(500, () => resolve(false));
      socket.once('error', () => resolve(false));
      socket.once('data', (data) => resolve(data.toString().startsWith('+PONG')));
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    }).finally(() => undefined);
    if (pong) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('redis-server did not answer PING within 10 s');
}

export async function startRedisServer(binary: string): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'auth-redis-'));
  const port = await freePort();
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPong(port, child);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      (stopped ??= (async () => {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
}
