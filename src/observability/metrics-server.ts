import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics';

/**
 * The metrics listener: GET /metrics in Prometheus' text format, on its own port (METRICS_PORT), so the
 * public port never exposes it and a network policy can open it to the scraper alone. Nothing else here.
 */
export async function startMetricsServer(
  metrics: Metrics,
  port: number,
  host?: string,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(path === '/metrics' ? 405 : 404, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end(path === '/metrics' ? 'Method not allowed\n' : 'Not found\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) =>
        res
          .writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' })
          .end(req.method === 'HEAD' ? undefined : body),
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics collection failed\n'),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const close = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections(); // a scraper's keep-alive connection must not hold the exit
    await closed;
  };
  return { server, port: (server.address() as AddressInfo).port, close };
}
