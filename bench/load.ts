import autocannon from 'autocannon';
import type { ServerProcess } from './child-process';

// One timed load run against one server: autocannon in this (the harness) process, the server in its own
// child process. Besides autocannon's figures, the server's CPU time and resident memory are read from
// /proc, which gives the cost of a request on the server side whatever the load generator's share of the cores.

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Headers added per request, each request taking the next set in turn (across all connections). */
  headerSets?: readonly Record<string, string>[];
  body?: string;
}

export interface RunFigures {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Responses outside 2xx. */
  non2xx: number;
  /** Server CPU (all threads) per request, µs. */
  serverCpuMicrosPerRequest: number | undefined;
  /** The part of it in the kernel, µs. */
  serverSystemMicrosPerRequest: number | undefined;
  /** Highest resident set seen while the run lasted, MiB. */
  serverPeakRssMiB: number | undefined;
}

const RSS_SAMPLE_MS = 200;

/** µs per request from a CPU counter in ms read before and after the run. */
function perRequest(before: number | undefined, after: number | undefined, requests: number): number | undefined {
  return before !== undefined && after !== undefined && requests > 0 ? ((after - before) * 1000) / requests : undefined;
}

export async function loadRun(
  server: ServerProcess,
  request: LoadRequest,
  options: { seconds: number; connections: number; pipelining: number },
): Promise<RunFigures> {
  let peakRss = server.memory()?.rssMiB;
  const sampler = setInterval(() => {
    const rss = server.memory()?.rssMiB;
    if (rss !== undefined && (peakRss === undefined || rss > peakRss)) peakRss = rss;
  }, RSS_SAMPLE_MS);
  const cpuBefore = server.cpuMs();
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${server.port}${request.path}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      ...(request.headerSets ? { requests: [{ setupRequest: inTurn(request.headerSets) }] } : {}),
      connections: options.connections,
      pipelining: options.pipelining,
      duration: options.seconds,
      timeout: 10,
    });
    const cpuAfter = server.cpuMs();
    const requests = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
    return {
      requestsPerSecond: requests / result.duration,
      latencyP50Ms: result.latency.p50,
      latencyP99Ms: result.latency.p99,
      requests,
      errors: result.errors,
      non2xx: result.non2xx,
      serverCpuMicrosPerRequest: perRequest(cpuBefore?.totalMs, cpuAfter?.totalMs, requests),
      serverSystemMicrosPerRequest: perRequest(cpuBefore?.systemMs, cpuAfter?.systemMs, requests),
      serverPeakRssMiB: peakRss,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** autocannon's per-request hook: the next header set each time. */
export function inTurn(
  headerSets: readonly Record<string, string>[],
): (built: autocannon.Request) => autocannon.Request {
  let next = 0;
  return (built) => {
    built.headers = { ...built.headers, ...headerSets[next % headerSets.length] };
    next += 1;
    return built;
  };
}

/** One request through fetch, for the checks before a scenario is loaded: status, body and headers. */
export async function probe(
  port: number,
  request: LoadRequest,
): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}
