import { resolve } from 'node:path';
import type * as ConfigModule from '../src/config/config';
import type * as LoggerModule from '../src/logger';
import type * as ModulesRegistry from '../src/modules';
import type * as ServiceModule from '../src/service';
import { benchModule } from './bench-module';

// The service as the bench drives it: the BUILT code (dist/, what `npm start` runs), configured from the
// environment the harness sets (production mode, strong secrets, logging at info to the file that is this
// process's stdout), with the registered modules plus the benchmark-only module. Started by bench/run.ts
// as a child process so it has a core of its own; it reports its port over IPC and dies with its parent.

// BENCH_DIST lets a run measure another build (e.g. a copy of an older tree) with the same harness.
const dist = resolve(process.env.BENCH_DIST ?? resolve(__dirname, '..', 'dist'));
/* eslint-disable @typescript-eslint/no-require-imports -- the built JS is loaded at run time; its types come from src */
const { loadConfig } = require(resolve(dist, 'config/config.js')) as typeof ConfigModule;
const { createLogger } = require(resolve(dist, 'logger.js')) as typeof LoggerModule;
const { modules } = require(resolve(dist, 'modules/index.js')) as typeof ModulesRegistry;
const { startService } = require(resolve(dist, 'service.js')) as typeof ServiceModule;
/* eslint-enable @typescript-eslint/no-require-imports */

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config);
  for (const warning of config.warnings) logger.warn(warning);
  const service = await startService(config, logger, {
    modules: [...modules, benchModule],
    port: 0, // a free port, reported to the harness: never collides with a service someone runs on 3000
    metricsPort: 0, // likewise for the metrics listener, when BENCH_METRICS turns metrics on
    host: '127.0.0.1', // loopback only
  });

  const stop = () => {
    service.stop().then(
      () => process.exit(0), // a normal exit, so --cpu-prof writes its profile
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop); // the harness went away: never outlive it
  process.send?.({ ready: true, port: service.port });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
