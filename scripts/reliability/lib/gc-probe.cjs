'use strict';
// Preloaded into the service by the soak only (node --expose-gc --require …/gc-probe.cjs dist/server.js):
// on an IPC message {measure: true} it runs a full garbage collection and answers with the memory figures,
// so the soak can compare heap in use after GC between the first and last minute. Never part of the
// service itself, which neither exposes gc nor listens on IPC.
if (typeof global.gc !== 'function') throw new Error('gc-probe needs node --expose-gc');
if (typeof process.send !== 'function') throw new Error('gc-probe needs an IPC channel');
process.on('message', (message) => {
  if (!message || message.measure !== true) return;
  // The memory-reducing full GC (V8's last-resort collection): besides freeing every unreachable object it
  // shrinks the young generation, which V8 otherwise keeps at the size the load grew it to (up to ~50 MiB
  // committed here), so RSS after it is what the process retains, not how V8 sized its nursery.
  global.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  // Per V8 space, committed (physical) size: shows which part of the heap holds the resident memory.
  const spaces = Object.fromEntries(
    require('node:v8')
      .getHeapSpaceStatistics()
      .map((space) => [space.space_name, space.physical_space_size]),
  );
  process.send({ measured: { rss, heapUsed, heapTotal, external, arrayBuffers, spaces } });
});
// The IPC channel must not keep a stopping service alive.
process.channel?.unref();
