import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../../../src/http/http-server';
import { authModule } from '../../../src/modules/auth';
import { buildTestApp, type TestApp } from '../../support/test-app';
import { probeModule } from '../../support/probe-module';

/**
 * The real app (auth module + the test-only probe module, in-memory SQLite) listening on 127.0.0.1 on a
 * free port, so every fuzz case goes through a real socket and Node's real HTTP parser. The auth rate
 * limit is raised: the fuzz cases are many and all come from 127.0.0.1; the limit has its own tests.
 */
export interface LiveApp {
  t: TestApp;
  server: Server;
  base: string;
  port: number;
  close(): Promise<void>;
}

export async function startLiveApp(env: Record<string, string> = {}): Promise<LiveApp> {
  const t = await buildTestApp({ modules: [authModule, probeModule()], env: { AUTH_RATE_LIMIT_MAX: '1000000000', ...env } });
  const server = createHttpServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    t,
    server,
    port,
    base: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

/** Every route the app declares with its method (the auth module's, the probe module's, the system routes). */
export const DECLARED_ROUTES: readonly { method: string; path: string }[] = [
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/health/live' },
  { method: 'GET', path: '/health/ready' },
  { method: 'POST', path: '/api/auth/login' },
  { method: 'POST', path: '/api/auth/refresh' },
  { method: 'POST', path: '/api/auth/logout' },
  { method: 'GET', path: '/api/probe/public' },
  { method: 'GET', path: '/api/probe/me' },
  { method: 'GET', path: '/api/probe/admin' },
  { method: 'POST', path: '/api/probe/things' },
  { method: 'POST', path: '/api/probe/admin-things' },
  { method: 'DELETE', path: '/api/probe/things/42' },
];

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
