import { join } from 'node:path';
import { runForAnswer } from './child-process';
import type { HashSamples } from './hash-reference';
import { probe, type LoadRequest } from './load';
import { median, PEERS, type HashCost } from './report';
import { DEMO_CREDENTIALS } from './scenarios';
import type { Servers } from './servers';

// What the harness makes sure of before any load (every scenario answers 200, the same bodies and token checks
// on every stack), the refresh scenario's sessions, and the argon2 reference the logins are measured against.

/** Samples of the argon2 reference at each of its two times (hash-reference.ts): their median is the figure. */
const HASH_SAMPLES = 4;
const HASH_REFERENCE_TIMEOUT_MS = 60_000;

/**
 * One argon2id verify with the auth module's parameters: HASH_SAMPLES samples from a child that runs as the
 * service does (bench/hash-reference.ts); `scratch` holds the compiled entries, `env` is the service's.
 */
export function timeHashes(scratch: string, env: NodeJS.ProcessEnv): Promise<HashSamples> {
  const { PATH, BENCH_DIST, GLIBC_TUNABLES, NODE_OPTIONS, DEMO_USER_PASSWORD } = env;
  return runForAnswer<HashSamples>(
    'argon2 reference',
    join(scratch, 'hash-reference.js'),
    { PATH, BENCH_DIST, GLIBC_TUNABLES, NODE_OPTIONS, DEMO_USER_PASSWORD, HASH_SAMPLES: String(HASH_SAMPLES) },
    HASH_REFERENCE_TIMEOUT_MS,
  );
}

/** The reference from samples taken before and after the logins, so a spell of the host meets both alike. */
export function hashCost(...runs: HashSamples[]): HashCost {
  return {
    wallMs: median(runs.flatMap((run) => run.wallMs)),
    cpuMs: median(runs.flatMap((run) => run.cpuMs)),
    systemMs: median(runs.flatMap((run) => run.systemMs)),
    parameters: runs[0].parameters,
  };
}

async function expectOk(name: string, port: number, request: LoadRequest): Promise<{ body: string; headers: Headers }> {
  const answer = await probe(port, request);
  if (answer.status !== 200)
    throw new Error(
      `${name}: ${request.method} ${request.path} answered ${answer.status}: ${answer.body.slice(0, 300)}`,
    );
  return answer;
}

/** Sessions the refresh scenario goes through, one per request in turn: its lookups are of different tokens, as a crowd's are. */
const REFRESH_SESSIONS = 64;

/** Checks every scenario answers 200 before any load, and collects the refresh cookies of REFRESH_SESSIONS logins. */
export async function prepare(
  servers: Servers,
  accessToken: string,
): Promise<{ refreshCookies: string[] | undefined; notes: string[] }> {
  const { service, bareKoa, raw } = servers;
  const notes: string[] = [];
  const root = { method: 'GET', path: '/' } as const;
  const fromService = await expectOk('service', service.port, root);
  for (const [name, server] of [
    ['raw server', raw],
    ['bare Koa', bareKoa],
  ] as const) {
    const reference = await expectOk(name, server.port, root);
    if (fromService.body !== reference.body)
      throw new Error(`${name} body differs from the service's GET /: ${fromService.body} vs ${reference.body}`);
  }
  const guarded = {
    method: 'GET',
    path: '/api/bench/protected',
    headers: { authorization: `Bearer ${accessToken}` },
  } as const;
  const protectedBody = (await expectOk('service', service.port, guarded)).body;
  const koaProtected = (await expectOk('bare Koa', bareKoa.port, guarded)).body;
  if (protectedBody !== koaProtected)
    throw new Error(`bare Koa protected body differs from the service's: ${protectedBody} vs ${koaProtected}`);
  for (const peer of PEERS) {
    const server = servers[peer];
    if (!server) continue;
    for (const [request, expected] of [
      [root, fromService.body],
      [guarded, protectedBody],
    ] as const) {
      const body = (await expectOk(peer, server.port, request)).body;
      if (body !== expected) throw new Error(`${peer}: ${request.path} answers ${body}, the service ${expected}`);
    }
    // The same token checks: a token of another type is refused by the peer as by the service.
    const refused = await probe(server.port, {
      ...guarded,
      headers: { authorization: `Bearer ${accessToken.split('.').slice(0, 2).join('.')}.x` },
    });
    if (refused.status !== 401) throw new Error(`${peer}: a tampered token answered ${refused.status}`);
  }

  const logIn = () =>
    probe(service.port, {
      method: 'POST',
      path: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_CREDENTIALS),
    });
  const login = await logIn();
  if (login.status === 404) {
    notes.push(
      'POST /api/auth/login answered 404: the auth module is not mounted, login and refresh were not measured',
    );
    return { refreshCookies: undefined, notes };
  }
  const refreshCookies = [refreshCookieOf(login)];
  while (refreshCookies.length < REFRESH_SESSIONS) {
    const logins = Array.from({ length: Math.min(8, REFRESH_SESSIONS - refreshCookies.length) }, logIn);
    refreshCookies.push(...(await Promise.all(logins)).map(refreshCookieOf));
  }
  for (const cookie of [refreshCookies[0], refreshCookies[REFRESH_SESSIONS - 1]]) {
    await expectOk('service', service.port, { method: 'POST', path: '/api/auth/refresh', headers: { cookie } });
  }
  return { refreshCookies, notes };
}

/** `refreshToken=…` from a login's answer. */
function refreshCookieOf(login: { status: number; body: string; headers: Headers }): string {
  if (login.status !== 200) throw new Error(`service: login answered ${login.status}: ${login.body.slice(0, 300)}`);
  const cookie = login.headers.getSetCookie().find((line) => line.startsWith('refreshToken='));
  if (!cookie) throw new Error('service: login set no refreshToken cookie');
  return cookie.split(';')[0];
}
