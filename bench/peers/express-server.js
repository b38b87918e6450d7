'use strict';
// An Express 5 production stack as the most-starred Express starter sets it up: pino-http request logging,
// helmet, express.json, passport with passport-jwt. Same two answers as the service's GET / and protected
// GET (bench/bench-module.ts), with the same token checks: HS256 pinned, issuer, audience, claim and header
// types, role. Started by bench/run.ts with JWT_SECRET, JWT_ISSUER, JWT_AUDIENCE; logs to stdout (a file).
const express = require('express');
const helmet = require('helmet');
const passport = require('passport');
const pinoHttp = require('pino-http');
const { ExtractJwt, Strategy } = require('passport-jwt');

const WELCOME = { status: 'success', data: { message: 'Welcome to the API' } };

passport.use(
  new Strategy(
    {
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: process.env.JWT_SECRET,
      algorithms: ['HS256'],
      issuer: process.env.JWT_ISSUER,
      audience: process.env.JWT_AUDIENCE,
      jsonWebTokenOptions: { complete: true },
    },
    (token, done) => {
      const { header, payload } = token;
      if (payload.typ !== 'access' || header.typ !== 'at+jwt' || payload.role !== 'user') return done(null, false);
      return done(null, { id: payload.sub });
    },
  ),
);

const app = express();
app.use(pinoHttp());
app.use(helmet());
app.use(express.json());
app.use(passport.initialize());
app.get('/', (_req, res) => res.json(WELCOME));
app.get('/api/bench/protected', (req, res, next) =>
  passport.authenticate('jwt', { session: false }, (error, user) => {
    if (error || !user) return res.status(401).json({ status: 'fail', message: 'Authentication required' });
    return res.json({ status: 'success', data: { message: 'Welcome to the API', user: user.id } });
  })(req, res, next),
);

const server = app.listen(0, '127.0.0.1', () => process.send?.({ ready: true, port: server.address().port }));
server.keepAliveTimeout = 5_000;
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', () => process.exit(0));
