'use strict';
// A Fastify 5 production stack, as a team would set one up instead of this service: pino request logging
// (Fastify's own), @fastify/helmet, @fastify/jwt. Same two answers as the service's GET / and protected GET
// (bench/bench-module.ts), with the same token checks: HS256 pinned, issuer, audience, claim and header
// types, role. Started by bench/run.ts with JWT_SECRET, JWT_ISSUER, JWT_AUDIENCE; logs to stdout (a file).
const fastify = require('fastify')({ logger: { level: 'info' } });

const WELCOME = { status: 'success', data: { message: 'Welcome to the API' } };

fastify.register(require('@fastify/helmet'));
fastify.register(require('@fastify/jwt'), {
  secret: process.env.JWT_SECRET,
  verify: { algorithms: ['HS256'], allowedIss: process.env.JWT_ISSUER, allowedAud: process.env.JWT_AUDIENCE, complete: true },
});

fastify.get('/', async () => WELCOME);
fastify.get('/api/bench/protected', async (request, reply) => {
  try {
    const { header, payload } = await request.jwtVerify({ complete: true });
    if (payload.typ !== 'access' || header.typ !== 'at+jwt' || payload.role !== 'user') throw new Error('wrong token type or role');
    return { status: 'success', data: { message: 'Welcome to the API', user: payload.sub } };
  } catch {
    reply.code(401);
    return { status: 'fail', message: 'Authentication required' };
  }
});

fastify.listen({ port: 0, host: '127.0.0.1' }).then(() => {
  process.send?.({ ready: true, port: fastify.server.address().port });
});
const stop = () => fastify.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', () => process.exit(0));
