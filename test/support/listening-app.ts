import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../../src/http/http-server';
import { buildTestApp, type TestApp } from './test-app';

/**
 * For a suite that needs the real HTTP server (its parser limits, raw bytes): the test app behind
 * createHttpServer on a free loopback port, opened before the suite and closed after it.
 */
export function useListeningApp(options: Parameters<typeof buildTestApp>[0] = {}): { app(): TestApp; port(): number } {
  let t: TestApp | undefined;
  let server: Server | undefined;
  let port = 0;
  beforeAll(async () => {
    t = await buildTestApp(options);
    server = createHttpServer(t.app);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await t?.close();
  });
  return { app: () => t!, port: () => port };
}
