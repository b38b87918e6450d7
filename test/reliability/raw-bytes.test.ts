import { connect } from 'node:net';
import fc from 'fast-check';
import { startLiveApp, type LiveApp } from './support/live-app';
import { rawRequest } from './support/raw-request';

// Property: bytes that are not valid HTTP, or barely are, never crash the process, never get a 5xx, and
// never hold the connection open once the client has finished sending. What answers malformed framing is
// Node's HTTP parser, before the app sees a request: the service's clientError handler sends the fail
// envelope with that 400, then closes.

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;

/** Writes the bytes, half-closes, and collects whatever comes back until the server closes (bounded). */
function exchange(port: number, bytes: Buffer, timeoutMs = 3_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connection still open ${timeoutMs} ms after the client finished sending`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined); // a reset is a valid way for the server to refuse garbage
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.end(bytes);
  });
}

const requestLine = fc.constantFrom(
  '',
  'GET / HTTP/1.1\r\n',
  'POST /api/auth/login HTTP/1.1\r\nHost: x\r\n',
  'GET /health/ready HTTP/1.0\r\n',
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
);
const junk = fc.oneof(
  fc.uint8Array({ maxLength: 400 }),
  fc.string({ unit: 'binary-ascii', maxLength: 400 }).map((s) => new TextEncoder().encode(s)),
);

describe('raw bytes on the socket', () => {
  let live: LiveApp;
  beforeAll(async () => {
    live = await startLiveApp();
  });
  afterAll(() => live?.close());

  it('never crash the process, never get a 5xx, never keep the connection', async () => {
    await fc.assert(
      fc.asyncProperty(requestLine, junk, async (start, bytes) => {
        const answer = await exchange(live.port, Buffer.concat([Buffer.from(start, 'latin1'), Buffer.from(bytes)]));
        for (const [, code] of answer.matchAll(/HTTP\/1\.[01] (\d{3})/g)) expect(Number(code)).toBeLessThan(500);
        // A request the parser rejects still gets the fail envelope (src/http/client-error.ts).
        if (/^HTTP\/1\.1 400 Bad Request\r\n(?![\s\S]*X-Request-Id)/i.test(answer))
          expect(answer).toContain('{"status":"fail"');
      }),
      { numRuns: 120, seed },
    );
    const res = await rawRequest(live.port, { method: 'GET', path: '/health/ready' });
    expect(res.status).toBe(200);
  });
});
