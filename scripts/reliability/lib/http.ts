import { request, type Agent, type OutgoingHttpHeaders } from 'node:http';

// One HTTP request from a chosen loopback source address, never rejecting: every way it can end is an
// Outcome the drivers classify (answered, refused, reset, timed out).

export interface Target {
  port: number;
  /** Source address, e.g. 127.0.0.3: the service's per-IP rate limit sees several clients. */
  localAddress?: string;
  /** A keep-alive agent (as a load balancer or browser would use), or none: a fresh connection each time. */
  agent?: Agent;
}

export interface Call {
  method: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
}

export interface Outcome {
  /** Set when a complete response arrived. */
  status?: number;
  headers: Record<string, string | string[] | undefined>;
  text?: string;
  /** Set when no complete response arrived: ECONNREFUSED, ECONNRESET, TIMEOUT, INCOMPLETE, … */
  error?: string;
  /** Whether the request went out on a reused keep-alive connection. */
  reusedSocket: boolean;
  /** Whether any byte of a response arrived (a partial response is a cut-off, never a refusal). */
  gotHead: boolean;
  startedAt: number;
  ms: number;
}

export function send(target: Target, call: Call, timeoutMs: number): Promise<Outcome> {
  const body = call.body === undefined ? undefined : Buffer.from(call.body);
  const headers: OutgoingHttpHeaders = { ...call.headers, ...(body ? { 'content-length': body.length } : {}) };
  const startedAt = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    let gotHead = false;
    const finish = (outcome: Omit<Outcome, 'startedAt' | 'ms' | 'reusedSocket' | 'gotHead'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, reusedSocket: req.reusedSocket, gotHead, startedAt, ms: Date.now() - startedAt });
    };
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        localAddress: target.localAddress,
        agent: target.agent ?? false,
        method: call.method,
        path: call.path,
        headers,
      },
      (res) => {
        gotHead = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          finish({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('aborted', () => finish({ headers: res.headers, error: 'INCOMPLETE' }));
        res.on('error', () => finish({ headers: res.headers, error: 'INCOMPLETE' }));
      },
    );
    // A hard deadline for the whole exchange: a request that hangs is a failure, never waited out.
    const timer = setTimeout(() => {
      finish({ headers: {}, error: 'TIMEOUT' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ headers: {}, error: error.code ?? error.message }));
    req.end(body);
  });
}

/** The refreshToken cookie value from a Set-Cookie header, if one was set (and not cleared). */
/** The value a Set-Cookie header of the answer gives the named cookie, if any. */
export function cookieFrom(headers: Outcome['headers'], name: string): string | undefined {
  const cookies = ([] as string[]).concat(headers['set-cookie'] ?? []);
  for (const cookie of cookies) {
    if (!cookie.startsWith(`${name}=`)) continue;
    const value = cookie.slice(name.length + 1).split(';', 1)[0];
    if (value) return value;
  }
  return undefined;
}

export const refreshCookieFrom = (headers: Outcome['headers']): string | undefined =>
  cookieFrom(headers, 'refreshToken');

/** data.accessToken of a success envelope, if present. */
export function accessTokenFrom(outcome: Outcome): string | undefined {
  try {
    const token = (JSON.parse(outcome.text ?? '') as { data?: { accessToken?: unknown } }).data?.accessToken;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}
