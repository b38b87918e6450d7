import { createSecretKey } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import jwt from 'jsonwebtoken';
import Koa from 'koa';

// The framework yardstick: Koa 3 + @koa/router with nothing else, serving the same JSON as the service.
// GET / sends the same body; GET /api/bench/protected verifies the same access token with the same library
// and the same checks (jsonwebtoken, HS256 pinned, the secret as a KeyObject, issuer, audience, claim and
// header types, role) and sends the same body as the bench module's route. The POST scenarios (login, refresh) get GET /'s body: like the raw server,
// a floor for "Koa and the router answer this request", not the same work. No request id, no log line, no
// security headers, no error handler: the gap to the service is what those cost.

const accessKey = createSecretKey(Buffer.from(process.env.JWT_SECRET ?? ''));
const verifyOptions = {
  algorithms: ['HS256' as const],
  issuer: process.env.JWT_ISSUER,
  audience: process.env.JWT_AUDIENCE,
  complete: true as const,
};
const WELCOME = { status: 'success', data: { message: 'Welcome to the API' } };

const app = new Koa();
const router = new Router();
router.get('/', (ctx) => {
  ctx.body = WELCOME;
});
router.get('/api/bench/protected', (ctx) => {
  const header = ctx.get('Authorization');
  try {
    if (!header.startsWith('Bearer ')) throw new Error('no bearer token');
    const { header: jose, payload } = jwt.verify(header.slice(7), accessKey, verifyOptions);
    const claims = payload as jwt.JwtPayload;
    if (claims.typ !== 'access' || jose.typ !== 'at+jwt' || claims.role !== 'user')
      throw new Error('wrong token type or role');
    ctx.body = { status: 'success', data: { message: 'Welcome to the API', user: claims.sub } };
  } catch {
    ctx.status = 401;
    ctx.body = { status: 'fail', message: 'Authentication required' };
  }
});
router.post('/api/auth/login', (ctx) => {
  ctx.body = WELCOME;
});
router.post('/api/auth/refresh', (ctx) => {
  ctx.body = WELCOME;
});
app.use(router.routes());

const server = createServer(app.callback());
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: (server.address() as AddressInfo).port });
});

const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', () => process.exit(0)); // the harness went away: never outlive it
