import request from 'supertest';
import { loadConfig } from '../../src/config/config';
import { authModule } from '../../src/modules/auth';
import { startService } from '../../src/service';
import { DEMO } from '../support/auth-helpers';
import { memoryLogger, TEST_SECRETS } from '../support/test-app';

// The connection-pool gauge of the metrics (docs/operations.md), on the pooled engines given by URL
// (scripts/ci/databases.sh native sets them). SQLite has no pool: test/observability/metrics.test.ts
// checks the gauge is absent there.

const ENGINES = [
  { name: 'postgres', url: process.env.TEST_POSTGRES_URL, variable: 'TEST_POSTGRES_URL' },
  { name: 'mysql', url: process.env.TEST_MYSQL_URL, variable: 'TEST_MYSQL_URL' },
];

for (const { name, url, variable } of ENGINES) {
  const run = url ? describe : describe.skip;
  if (!url) process.stdout.write(`pool metrics on ${name}: skipped (${variable} is not set)\n`);
  run(`connection pool gauge on ${name}`, () => {
    it('reports used, idle and pending connections at scrape time', async () => {
      const config = loadConfig({
        NODE_ENV: 'test',
        ...TEST_SECRETS,
        DATABASE_URL: url!,
        METRICS_PORT: '9464',
        AUTH_RATE_LIMIT_MAX: '1000',
      });
      const service = await startService(config, memoryLogger().logger, {
        modules: [authModule],
        port: 0,
        metricsPort: 0,
        host: '127.0.0.1',
      });
      try {
        await request(`http://127.0.0.1:${service.port}`).post('/api/auth/login').send(DEMO).expect(200);
        const text = await (await fetch(`http://127.0.0.1:${service.metricsPort}/metrics`)).text();
        const gauge = (state: string) => {
          const series = `db_client_connections{state="${state}"} `;
          const line = text.split('\n').find((candidate) => candidate.startsWith(series));
          return line === undefined ? undefined : Number(line.slice(series.length));
        };
        expect(gauge('used')).toBe(0); // nothing in flight while scraping
        expect(gauge('idle')).toBeGreaterThanOrEqual(1); // the login's connection went back to the pool
        expect(gauge('pending')).toBe(0);
      } finally {
        await service.stop();
      }
    });
  });
}
