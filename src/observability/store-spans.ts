import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { DatabaseEngine } from '../config/config';
import type { StoreCallObserver } from '../stores/observed-database';

// The `db.system.name` values of the OpenTelemetry semantic conventions.
const SYSTEM: Record<DatabaseEngine, string> = {
  sqlite: 'sqlite',
  postgres: 'postgresql',
  mysql: 'mysql',
  mssql: 'microsoft.sql_server',
  mongodb: 'mongodb',
};

/**
 * A span around every store call (`store refresh-tokens.create`). The drivers' own instrumentations (pg,
 * mysql2, tedious, mongoose) add the queries below it; sequelize's SQLite driver has none, so on the
 * default engine this span is what shows the database in a trace. Loaded only when tracing is on.
 */
export function storeSpans(engine: DatabaseEngine): StoreCallObserver {
  const tracer = trace.getTracer('koa-api-service/stores');
  const system = SYSTEM[engine];
  return (operation, call) =>
    tracer.startActiveSpan(
      `store ${operation}`,
      { attributes: { 'db.system.name': system, 'db.operation.name': operation } },
      async (span) => {
        try {
          return await call();
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
          throw error;
        } finally {
          span.end();
        }
      },
    );
}
