// First, before anything OpenTelemetry instruments is loaded: starts tracing when it is configured.
import { stopTracing } from './observability/tracing-preload';
import { ConfigError, loadConfig, type Config } from './config/config';
import { createLogger } from './logger';
import { startService } from './service';

// The entry point: read the configuration, start the service, stop it gracefully on SIGTERM / SIGINT.

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config);
  for (const warning of config.warnings) logger.warn(warning);

  const service = await startService(config, logger);
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'signal received');
    service
      .stop()
      .then(stopTracing) // the last spans, sent before exiting
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
