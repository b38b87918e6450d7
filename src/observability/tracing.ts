import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { MongooseInstrumentation } from '@opentelemetry/instrumentation-mongoose';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { TediousInstrumentation } from '@opentelemetry/instrumentation-tedious';
import { NodeSDK } from '@opentelemetry/sdk-node';

// The OpenTelemetry Node SDK, loaded and started by tracing-preload.ts only when tracing is on. The SDK
// reads the standard variables itself: OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT, _PROTOCOL
// (http/protobuf by default, http/json, grpc), _HEADERS, _TIMEOUT, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER(_ARG), OTEL_PROPAGATORS (W3C tracecontext + baggage by
// default), OTEL_BSP_* (batching).

/** Requests not worth a trace each: the platform's probes and Prometheus' scrapes (the metrics listener). */
const UNTRACED_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/** Starts the SDK; returns the function that flushes the last spans and stops it. */
export function startTracing(env: NodeJS.ProcessEnv = process.env): () => Promise<void> {
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
      }),
      // A span for the matched route (`router - /api/auth/login`), which also gives the server span its route
      // template. Not one per middleware: ours are small, and their spans would all be called "anonymous".
      new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
      new PgInstrumentation(),
      new MySQL2Instrumentation(),
      new TediousInstrumentation(),
      new MongooseInstrumentation(),
      new IORedisInstrumentation(), // the rate limit's Redis (REDIS_URL)
      // trace_id, span_id and trace_flags on every log line written while a span is active.
      new PinoInstrumentation({ disableLogSending: !env.OTEL_LOGS_EXPORTER }),
    ],
    // Metrics go to Prometheus (METRICS_PORT) and logs to stdout: the SDK's OTLP metrics and logs exporters
    // (its defaults) stay off unless OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER ask for them.
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  return () => sdk.shutdown();
}
