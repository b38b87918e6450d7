import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ServerProcess } from './child-process';
import { PEERS, type PeerName } from './report';

// The servers under test, each in its own child process: the service, the two references (raw node:http, bare Koa)
// and the peer stacks when installed.

export type Servers = Record<'service' | 'bareKoa' | 'raw', ServerProcess> & Partial<Record<PeerName, ServerProcess>>;

const BENCH_DIR = __dirname;

/**
 * The peer stacks (bench/peers/), when installed: each in its own child process, production mode, logging
 * to the service's log file as the service does, verifying the same tokens (secret, issuer, audience).
 */
async function startPeers(
  env: NodeJS.ProcessEnv,
  jwt: { issuer: string; audience: string },
  logFd: number,
): Promise<Partial<Record<PeerName, ServerProcess>>> {
  const peersDir = join(BENCH_DIR, 'peers');
  if (!existsSync(join(peersDir, 'node_modules'))) return {};
  const started = await Promise.all(
    PEERS.map((peer) =>
      ServerProcess.start(peer, {
        script: join(peersDir, `${peer}-server.js`),
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          JWT_SECRET: env.JWT_SECRET,
          JWT_ISSUER: jwt.issuer,
          JWT_AUDIENCE: jwt.audience,
        },
        stdout: logFd,
        startTimeoutMs: 30_000,
      }),
    ),
  );
  return Object.fromEntries(PEERS.map((peer, index) => [peer, started[index]]));
}

/** The service (its log to `logFd`, with `nodeFlags`), the two references and the peer stacks, started at once. */
export async function startServers(
  scratch: string,
  env: NodeJS.ProcessEnv,
  jwt: { issuer: string; audience: string },
  logFd: number,
  nodeFlags: string[],
): Promise<Servers> {
  const [service, raw, bareKoa] = await Promise.all([
    ServerProcess.start('service', {
      script: join(scratch, 'bench-server.js'),
      env,
      stdout: logFd,
      nodeFlags,
      startTimeoutMs: 120_000, // start-up checks the secrets (CPU-bound): minutes on a machine shared with other jobs
    }),
    ServerProcess.start('raw server', {
      script: join(scratch, 'raw-server.js'),
      env: { PATH: process.env.PATH },
      stdout: 'ignore',
      startTimeoutMs: 30_000,
    }),
    ServerProcess.start('bare Koa', {
      script: join(scratch, 'bare-koa-server.js'),
      // NODE_PATH: the compiled entry lives in the scratch directory, its packages in the repository.
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        NODE_PATH: join(BENCH_DIR, '..', 'node_modules'),
        JWT_SECRET: env.JWT_SECRET,
        JWT_ISSUER: jwt.issuer,
        JWT_AUDIENCE: jwt.audience,
      },
      stdout: 'ignore',
      startTimeoutMs: 30_000,
    }),
  ]);
  return { service, bareKoa, raw, ...(await startPeers(env, jwt, logFd)) };
}
