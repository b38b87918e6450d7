'use strict';
// Preloaded into the service by the soak only (node --expose-gc --require …/gc-probe.cjs dist/server.js):
// on an IPC message {measure: true} it runs a full garbage collection and answers with the memory figures,
// so the soak can compare heap in use after GC between the first and last minute. Never part of the
// service itself, which neither exposes gc nor listens on IPC.
if (typeof global.gc !== 'function') throw new Error('gc-probe needs node --expose-gc');
if (typeof process.send !== 'function') throw new Error('gc-probe needs an IPC channel');
process.on('message', (message) => {
  if (!message || message.measure !== true) return;
  global.gc();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.send({ measured: { rss, heapUsed, heapTotal, external } });
});
// The IPC channel must not keep a stopping service alive.
process.channel?.unref();
