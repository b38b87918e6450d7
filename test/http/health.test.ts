import request from 'supertest';
import { buildTestApp, type TestApp } from '../support/test-app';

describe('health probes', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  it('live and ready answer 200 envelopes when all is well', async () => {
    const live = await request(t.app.callback()).get('/health/live').expect(200);
    expect(live.body).toEqual({ status: 'success', data: { status: 'ok' } });
    const ready = await request(t.app.callback()).get('/health/ready').expect(200);
    expect(ready.body).toEqual({ status: 'success', data: { status: 'ready', database: 'sqlite' } });
  });

  it('ready is 503 when the shutdown begins while it pings the store (no "ready" after the signal)', async () => {
    const database = t.services.database as { ping(): Promise<void> };
    const ping = database.ping;
    database.ping = async () => {
      t.services.lifecycle.beginShutdown(); // SIGTERM arrives while the ping is on its way
    };
    try {
      const ready = await request(t.app.callback()).get('/health/ready').expect(503);
      expect(ready.body.message).toBe('Shutting down');
    } finally {
      database.ping = ping;
    }
  });

  it('ready is 503 once the store is unreachable; live stays 200', async () => {
    await t.services.database.close();
    const ready = await request(t.app.callback()).get('/health/ready').expect(503);
    expect(ready.body).toEqual({ status: 'fail', message: 'Database unreachable' });
    await request(t.app.callback()).get('/health/live').expect(200);
  });

  it('ready is 503 while shutting down', async () => {
    t.services.lifecycle.beginShutdown();
    const ready = await request(t.app.callback()).get('/health/ready').expect(503);
    expect(ready.body.message).toBe('Shutting down');
  });
});
