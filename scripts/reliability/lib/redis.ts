import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { onExit, sleep, spawnChild, waitForExit } from './children';
import { freePort } from './free-port';
import { connect } from 'node:net';
import { tempDirectory } from './settings';

// A throw-away redis-server (Debian's redis-server package) on 127.0.0.1, no persistence. The outage test
// kills it (SIGKILL: like a crash) and starts a new one on the same port.

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.write('PING\r\n');
  });
}

export class RedisServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async create(): Promise<RedisServer> {
    const dir = tempDirectory('redis');
    onExit(() => rmSync(dir, { recursive: true, force: true }));
    const server = new RedisServer(await freePort(), dir);
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const binary = process.env.REDIS_SERVER ?? 'redis-server';
    this.child = spawnChild(
      binary,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir],
      { stdio: 'ignore' },
    );
    writeFileSync(join(this.dir, 'redis.pid'), `${this.child.pid}\n`); // for CI's backstop clean-up
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (await answersPing(this.port)) return;
      if (this.child.exitCode !== null) break;
      await sleep(100);
    }
    throw new Error(
      `redis-server did not answer on port ${this.port} (is it installed? apt-get install -y redis-server)`,
    );
  }

  /** SIGKILL: the counters are gone, clients see the connection drop. */
  async kill(): Promise<void> {
    if (!this.child) return;
    this.child.kill('SIGKILL');
    await waitForExit(this.child, 5_000);
    this.child = undefined;
  }
}
