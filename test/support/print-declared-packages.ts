import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { declareApi } from '../../src/http/api';
import { Lifecycle } from '../../src/lifecycle/lifecycle';
import { modules } from '../../src/modules';
import { metricsOff } from '../../src/observability/metrics';
import { userServices } from '../../src/service';
import { storesOf } from '../../src/services';
import { TokenService } from '../../src/auth/tokens';
import { createDatabase } from '../../src/stores/create-database';
import { packageName } from './loaded-package-name';

// Run in a child process (test/service/loaded-packages.test.ts) for an engine no server runs for here
// (MongoDB): builds everything the service builds before it connects — the configuration, the database with
// every registered store, the modules and their routes — and prints the npm packages in require.cache.

const config = loadConfig(process.env);
const logger = pino({ level: 'silent' });
const database = createDatabase(config, logger, storesOf(modules), { cleanupJob: false, connectAttempts: 1 }); // never connected
const services = {
  config,
  logger,
  database,
  tokens: new TokenService(config.jwt),
  ...userServices(config, database),
  lifecycle: new Lifecycle(),
  metrics: metricsOff,
};
declareApi(services, modules);
const packages = new Set(
  Object.keys(require.cache)
    .map(packageName)
    .filter((name) => name !== undefined),
);
process.stdout.write(`${JSON.stringify([...packages].sort())}\n`);
