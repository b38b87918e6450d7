import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { fail } from './envelope';
import type { RequestState } from './routing/route';

/** The statuses Node itself gives these parser errors; anything else is a plain 400. */
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'Chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time'],
};
const BAD_REQUEST: [number, string, string] = [400, 'Bad Request', 'Malformed HTTP request'];

/** A complete HTTP/1.1 response with the fail envelope, written once per kind at start-up. */
function rawResponse([status, reason, message]: [number, string, string]): string {
  const body = JSON.stringify(fail(message));
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

const RESPONSES = new Map(Object.entries(CLIENT_ERRORS).map(([code, kind]) => [code, rawResponse(kind)]));
const BAD_REQUEST_RESPONSE = rawResponse(BAD_REQUEST);

/**
 * Bytes that are not HTTP never reach Koa: Node's parser rejects them. Answer those with the fail envelope
 * too, with the status Node would have used (Node's default answer has no body), or just close when the
 * socket can no longer be written or an answer has already begun on it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(RESPONSES.get(error.code ?? '') ?? BAD_REQUEST_RESPONSE);
}

/** The node:http server for an app, with the service's socket-level rules. Not yet listening. */
export function createHttpServer(app: Koa<RequestState>): Server {
  const server = createServer(app.callback());
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 5_000; // Node's default, stated: idle keep-alive sockets are closed after 5 s
  server.requestTimeout = 30_000; // a client that never finishes sending does not hold a socket forever
  return server;
}
