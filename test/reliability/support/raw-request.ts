import { request, type OutgoingHttpHeaders } from 'node:http';
import type { Answer } from './well-formed';

export interface RawRequest {
  method: string;
  /** Sent exactly as given (no URL parsing or normalising on the way). */
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
}

/**
 * One request over a fresh loopback connection with node:http, which sends path and headers as they are
 * (supertest parses and normalises URLs). An answer that does not come within `timeoutMs` is a failure:
 * a hostile input must never leave a request hanging.
 */
export function rawRequest(port: number, spec: RawRequest, timeoutMs = 5_000): Promise<Answer> {
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
  // Framed by Content-Length always: node:http would send a GET's body unframed (no length, not chunked).
  const headers = body ? { ...spec.headers, 'content-length': body.length } : spec.headers;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: spec.method, path: spec.path, headers, agent: false, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
