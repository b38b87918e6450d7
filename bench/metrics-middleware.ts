// What the Prometheus request metrics add to every request: the metrics middleware (timer, route label,
// histogram observation through prom-client) composed in front of a trivial handler, versus the handler
// alone, with koa-compose as the app uses it. No network, so the figure is not drowned by the machine's
// load the way a load test's is (docs/performance.md, "Metrics on and off").
// Run: npx tsx bench/metrics-middleware.ts   (prints figures; asserts nothing)
import Router from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import { requestMetrics } from '../src/http/middleware/request-metrics';
import type { RequestState } from '../src/http/routing/route';
import { createPrometheusMetrics } from '../src/observability/prometheus-metrics';

const metrics = createPrometheusMetrics({ storeOperations: [] });
const handler: Middleware<RequestState> = async (ctx) => {
  ctx.status = 200;
  (ctx as unknown as { _matchedRoute: string })._matchedRoute = '/api/bench/protected'; // what the router sets
};
const plain = compose([handler]);
const measured = compose([requestMetrics(metrics.http, new Router<RequestState>()), handler]);

/** CPU nanoseconds per request over `count` sequential requests (a fake context: only what is read). */
async function cpuPerRequest(chain: typeof plain | typeof measured, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    await chain({ method: 'GET', path: '/api/bench/protected', status: 404 } as never, async () => undefined);
  }
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / count;
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, prom-client histogram, 300 000 requests per measurement`);
  for (let round = 1; round <= 4; round++) {
    const without = await cpuPerRequest(plain, 300_000);
    const withMetrics = await cpuPerRequest(measured, 300_000);
    console.log(
      `round ${round}: handler alone ${without.toFixed(0)} ns, with the metrics middleware ${withMetrics.toFixed(0)} ns: +${(withMetrics - without).toFixed(0)} ns per request`,
    );
  }
}

void main();
