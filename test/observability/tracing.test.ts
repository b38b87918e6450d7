import { randomBytes } from 'node:crypto';
import { DEMO } from '../support/auth-helpers';
import { findRedisServer, startRedisServer } from '../support/redis-server';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';
import { startServiceProcess, type ServiceProcess } from './support/service-process';
import { freePort } from '../../scripts/reliability/lib/free-port';

// Tracing, opt-in: the real entry point in a child process (see support/service-process.ts) exporting to
// an OTLP/HTTP receiver in this process. Each test starts its own service: a few seconds each.

const SERVER = 2;
const redisBinary = findRedisServer();
const postgresUrl = process.env.TEST_POSTGRES_URL;
if (!redisBinary) process.stdout.write('tracing of the Redis client: skipped (redis-server is not installed)\n');
if (!postgresUrl) process.stdout.write('tracing of the PostgreSQL driver: skipped (TEST_POSTGRES_URL is not set)\n');
const OPENTELEMETRY_OR_PROMETHEUS = /[\\/]node_modules[\\/](@opentelemetry|prom-client)[\\/]/;

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = check();
    if (found !== undefined) return found;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function login(service: ServiceProcess, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`http://127.0.0.1:${service.port}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(DEMO),
  });
}

/** The names of a span's ancestors in the received spans, nearest first. */
function ancestorsOf(span: ReceivedSpan, spans: ReceivedSpan[]): string[] {
  const byId = new Map<string, ReceivedSpan>(spans.map((candidate) => [candidate.spanId, candidate]));
  const names: string[] = [];
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId))
    names.push(parent.name);
  return names;
}

function tracingEnv(receiver: OtlpReceiver, protocol: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'tracing-test',
    OTEL_BSP_SCHEDULE_DELAY: '100', // export within 100 ms instead of 5 s
  };
}

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('loads nothing of OpenTelemetry (nor prom-client without METRICS_PORT), even after serving requests', async () => {
    const service = await startServiceProcess({});
    try {
      expect((await login(service)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${service.port}/health/ready`)).status).toBe(200);
      const loaded = await service.loadedModules();
      expect(loaded.filter((file) => /[\\/]node_modules[\\/]koa[\\/]/.test(file)).length).toBeGreaterThan(0); // the list is real
      expect(loaded.filter((file) => OPENTELEMETRY_OR_PROMETHEUS.test(file))).toEqual([]);
      const request = service.lines.find((line) => line.msg === 'request');
      expect(request).toBeDefined();
      expect(request).not.toHaveProperty('trace_id');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});

describe('tracing on', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(() => receiver.close());

  it('exports (http/json) a server span named after the route template, continuing the caller traceparent, with a child span for the store call', async () => {
    // With metrics on too: store calls then pass through both observers (timing and span).
    const metricsPort = await freePort();
    const service = await startServiceProcess({
      ...tracingEnv(receiver, 'http/json'),
      METRICS_PORT: String(metricsPort),
    });
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    let stopped = false;
    try {
      const answer = await login(service, { traceparent: `00-${traceId}-${callerSpanId}-01` });
      expect(answer.status).toBe(200);

      const server = await until('the server span', () =>
        receiver.spans.find((span) => span.traceId === traceId && span.kind === SERVER),
      );
      expect(server.parentSpanId).toBe(callerSpanId); // W3C traceparent honoured
      expect(server.name).toBe('POST /api/auth/login');
      expect(server.attributes['http.route']).toBe('/api/auth/login');
      expect(Number(server.attributes['http.response.status_code'])).toBe(200);
      expect(server.serviceName).toBe('tracing-test');

      const store = await until('the store span', () =>
        receiver.spans.find((span) => span.traceId === traceId && span.name === 'store refresh-tokens.create'),
      );
      expect(store.attributes['db.system.name']).toBe('sqlite');
      // The store span descends from the server span (through the route's span).
      expect(ancestorsOf(store, receiver.spans)).toEqual(['router - /api/auth/login', 'POST /api/auth/login']);

      // The request's log line carries the trace and span ids.
      const line = service.lines.find(
        (candidate) => candidate.msg === 'request' && candidate.path === '/api/auth/login',
      );
      expect(line).toMatchObject({ trace_id: traceId, span_id: server.spanId });

      // Health probes and metrics scrapes are not traced; the store call was counted as well; the SDK is in memory.
      expect((await fetch(`http://127.0.0.1:${service.port}/health/ready`)).status).toBe(200);
      const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(scraped).toContain('db_client_operation_duration_seconds_count{operation="refresh-tokens.create"} 1');
      expect((await service.loadedModules()).some((file) => /[\\/]@opentelemetry[\\/]sdk-node[\\/]/.test(file))).toBe(
        true,
      );
      expect(await service.stop()).toBe(0);
      stopped = true;
      expect(
        receiver.spans.filter((span) => /^\/(health|metrics)/.test(String(span.attributes['url.path'] ?? ''))),
      ).toEqual([]);
      expect(receiver.spans.filter((span) => span.kind === SERVER).map((span) => span.name)).toEqual([
        'POST /api/auth/login',
      ]);
    } finally {
      if (!stopped) await service.stop();
    }
  });

  it('exports with http/protobuf (the default protocol)', async () => {
    const service = await startServiceProcess(tracingEnv(receiver, 'http/protobuf'));
    const traceId = randomBytes(16).toString('hex');
    try {
      expect((await login(service, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` })).status).toBe(
        200,
      );
      // Protobuf carries ids as raw bytes and strings as UTF-8: both are found in the request body.
      const exported = await until('a protobuf export with the trace', () =>
        receiver.requests.find((request) => request.body.includes(Buffer.from(traceId, 'hex'))),
      );
      expect(exported.path).toBe('/v1/traces');
      expect(exported.headers['content-type']).toBe('application/x-protobuf');
      expect(exported.body.includes(Buffer.from('/api/auth/login'))).toBe(true);
      expect(exported.body.includes(Buffer.from('store refresh-tokens.create'))).toBe(true);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  (redisBinary ? it : it.skip)('traces the Redis client of the rate limit (REDIS_URL)', async () => {
    const redis = await startRedisServer(redisBinary!);
    const service = await startServiceProcess({ ...tracingEnv(receiver, 'http/json'), REDIS_URL: redis.url });
    const traceId = randomBytes(16).toString('hex');
    try {
      expect((await login(service, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` })).status).toBe(
        200,
      );
      // Spans arrive in batches as they end: wait for the server span (it ends last) before walking up.
      await until('the server span', () =>
        receiver.spans.find((span) => span.traceId === traceId && span.kind === SERVER),
      );
      const command = await until('a Redis span', () =>
        receiver.spans.find(
          (span) => span.traceId === traceId && span.scope === '@opentelemetry/instrumentation-ioredis',
        ),
      );
      expect(command.attributes['db.system'] ?? command.attributes['db.system.name']).toBe('redis');
      expect(ancestorsOf(command, receiver.spans)).toContain('POST /api/auth/login');
    } finally {
      expect(await service.stop()).toBe(0);
      await redis.stop();
    }
  });

  (postgresUrl ? it : it.skip)('traces the PostgreSQL driver beneath the store span (TEST_POSTGRES_URL)', async () => {
    const service = await startServiceProcess({ ...tracingEnv(receiver, 'http/json'), DATABASE_URL: postgresUrl! });
    const traceId = randomBytes(16).toString('hex');
    try {
      expect((await login(service, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` })).status).toBe(
        200,
      );
      const query = await until('a pg span', () =>
        receiver.spans.find(
          (span) =>
            span.traceId === traceId &&
            span.scope === '@opentelemetry/instrumentation-pg' &&
            ancestorsOf(span, receiver.spans).includes('store refresh-tokens.create'),
        ),
      );
      expect(query.attributes['db.system'] ?? query.attributes['db.system.name']).toBe('postgresql');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
