import { tracingRequested } from '../config/config';
import type * as Tracing from './tracing';

// Imported first by the entry point (src/server.ts), before anything the SDK instruments: the
// instrumentations patch koa, pino, pg, ioredis… as they are first required, so the SDK has to be running
// by then. The one module with an effect at import time, for that reason. With tracing off (no OTLP
// endpoint), nothing of OpenTelemetry is loaded at all.

let stop: (() => Promise<void>) | undefined;

if (tracingRequested()) {
  // A synchronous require on purpose: an import() would let the rest of the entry point load first.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./tracing') as typeof Tracing;
  stop = startTracing();
}

/** Flushes the spans still queued and stops the SDK; nothing when tracing is off. */
export function stopTracing(): Promise<void> {
  return stop ? stop() : Promise.resolve();
}
