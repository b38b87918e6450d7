import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// The yardstick: bare node:http answering every request with the same JSON body the service sends for
// GET / (the harness checks the two bodies are identical before it measures). No routing, no headers beyond
// the content type, nothing per request but the write: the ceiling any framework is measured against.

const BODY = Buffer.from(JSON.stringify({ status: 'success', data: { message: 'Welcome to the API' } }));

const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': BODY.length });
  res.end(BODY);
});
server.keepAliveTimeout = 5_000;

server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});

const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', () => process.exit(0)); // the harness went away: never outlive it
