import pino, { type Logger } from 'pino';
import type { Config } from './config/config';
import { turnBatchedStdout } from './log-destination';
import { serializeError } from './log-errors';

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

/**
 * JSON lines on stdout in production and test; readable lines in development when pino-pretty is installed.
 * Lines are written once per event-loop turn (src/log-destination.ts): one system call for all the request
 * lines of a turn instead of one each (docs/performance.md).
 */
/** What every logger of the service writes and leaves out, whatever its level and destination. */
export const LOG_OPTIONS = {
  base: undefined, // no pid/hostname on every line: the platform adds those
  redact: { paths: REDACTED, censor: '[redacted]' },
  serializers: { err: serializeError }, // no statement or bound value of a database error (log-errors.ts)
};

export function createLogger(config: Pick<Config, 'env' | 'logLevel'>): Logger {
  const options = { ...LOG_OPTIONS, level: config.logLevel };
  if (config.env === 'development' && prettyTransportAvailable()) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(options, turnBatchedStdout());
}
