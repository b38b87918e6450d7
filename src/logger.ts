import pino, { type Logger } from 'pino';
import type { Config } from './config/config';

export type { Logger };

/** Paths never written to a log line, whatever a caller passes in. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  '*.password',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
];

function prettyTransportAvailable(): boolean {
  try {
    require.resolve('pino-pretty');
    return true;
  } catch {
    return false; // a production install has no dev dependencies: plain JSON lines
  }
}

/** JSON lines in production and test; readable lines in development when pino-pretty is installed. */
export function createLogger(config: Pick<Config, 'env' | 'logLevel'>): Logger {
  const pretty = config.env === 'development' && prettyTransportAvailable();
  return pino({
    level: config.logLevel,
    base: undefined, // no pid/hostname on every line: the platform adds those
    redact: { paths: REDACTED, censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } } : {}),
  });
}
