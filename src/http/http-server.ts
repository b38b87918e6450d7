import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { fail } from './envelope';
import type { RequestState } from './routing/route';

const MALFORMED_BODY = JSON.stringify(fail('Malformed HTTP request'));
const MALFORMED_RESPONSE = [
  'HTTP/1.1 400 Bad Request',
  'Content-Type: application/json; charset=utf-8',
  `Content-Length: ${Buffer.byteLength(MALFORMED_BODY)}`,
  'Connection: close',
  '',
  MALFORMED_BODY,
].join('\r\n');

/**
 * Bytes that are not HTTP never reach Koa: Node's parser rejects them. Answer those with the fail envelope
 * too (Node's default is a bare 400), or just close when the socket can no longer be written.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(MALFORMED_RESPONSE);
}

/** The node:http server for an app, with the service's socket-level rules. Not yet listening. */
export function createHttpServer(app: Koa<RequestState>): Server {
  const server = createServer(app.callback());
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 5_000; // Node's default, stated: idle keep-alive sockets are closed after 5 s
  server.requestTimeout = 30_000; // a client that never finishes sending does not hold a socket forever
  return server;
}
