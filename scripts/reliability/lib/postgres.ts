import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { onExit } from './children';
import { freePort } from './free-port';
import { tempDirectory } from './settings';

// A throw-away PostgreSQL cluster from Debian's packages (apt-get install postgresql): initdb in a temp
// dir, listening on 127.0.0.1 only on a free port, trust authentication (loopback, test data only).
// The outage test stops and starts it with pg_ctl; the data directory stays, so committed rows survive.

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length)
    throw new Error('PostgreSQL server binaries not found: apt-get install -y postgresql (or set PG_BIN)');
  return join(root, versions[0], 'bin');
}

/** initdb and the server refuse to run as root: as root, run them as the `postgres` system user. */
function asOwner(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function run(command: string, args: string[], timeoutMs = 60_000): string {
  const [file, argv] = asOwner(command, args);
  return execFileSync(file, argv, { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
}

export class PostgresCluster {
  private running = false;

  private constructor(
    readonly dataDir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  get url(): string {
    return `postgres://app@127.0.0.1:${this.port}/app`;
  }

  static async create(): Promise<PostgresCluster> {
    const bin = binDir();
    const base = tempDirectory('pg'); // the postmaster writes data/postmaster.pid here
    if (process.getuid?.() === 0)
      chownSync(
        base,
        Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      );
    const cluster = new PostgresCluster(join(base, 'data'), await freePort(), bin);
    onExit(() => {
      cluster.stopSync('immediate');
      rmSync(base, { recursive: true, force: true });
    });
    run(
      join(bin, 'initdb'),
      ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8'],
      120_000,
    );
    await cluster.start();
    run(join(bin, 'psql'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(cluster.port),
      '-U',
      'postgres',
      '-v',
      'ON_ERROR_STOP=1',
      '-q',
      '-c',
      'CREATE ROLE app LOGIN',
      '-c',
      'CREATE DATABASE app OWNER app',
    ]);
    return cluster;
  }

  /** Starts the server and waits until it accepts connections (pg_ctl -w). */
  async start(): Promise<void> {
    const options = `-c listen_addresses=127.0.0.1 -p ${this.port} -k ${this.dataDir} -c fsync=off -c max_connections=60`;
    run(
      join(this.bin, 'pg_ctl'),
      ['-D', this.dataDir, '-o', options, '-l', join(this.dataDir, '..', 'postgres.log'), '-w', '-t', '60', 'start'],
      90_000,
    );
    this.running = true;
  }

  /** `immediate`: like a crash (no checkpoint, clients cut off); `fast`: clients disconnected, clean shutdown. */
  async stop(mode: 'immediate' | 'fast' = 'immediate'): Promise<void> {
    this.stopSync(mode);
  }

  private stopSync(mode: 'immediate' | 'fast'): void {
    if (!this.running) return;
    run(join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-m', mode, '-w', '-t', '30', 'stop'], 40_000);
    this.running = false;
  }

  /** Rows in the refresh-token table (a check that tokens survived the outage). */
  count(table: string): number {
    return Number(
      run(join(this.bin, 'psql'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(this.port),
        '-U',
        'app',
        '-d',
        'app',
        '-Atqc',
        `SELECT count(*) FROM ${table}`,
      ]).trim(),
    );
  }
}
