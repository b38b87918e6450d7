import type Router from '@koa/router';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { createHttpServer } from '../../../src/http/http-server';
import { modules } from '../../../src/modules';
import { buildTestApp, type TestApp } from '../../support/test-app';
import { Gate, probeModule } from '../../support/probe-module';

/**
 * The real app (every registered module + the test-only probe module, in-memory SQLite) listening on
 * 127.0.0.1 on a free port, so every fuzz case goes through a real socket and Node's real HTTP parser. The
 * auth rate limit is raised: the fuzz cases are many and all come from 127.0.0.1; the limit has its own tests.
 */
export interface LiveApp {
  t: TestApp;
  /** Every route the app mounted, read from its router: a new module is fuzzed without editing a list. */
  routes: DeclaredRoute[];
  server: Server;
  base: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Routes whose answer is not the envelope on purpose: the probe's deliberate 500, and the API document and
 * its HTML page (API_DOCS), which serve their own formats (test/http covers them).
 */
const NOT_ENVELOPE = /^\/api\/probe\/boom$|^\/openapi\.json$|^\/docs(\/|$)/;

export async function startLiveApp(env: Record<string, string> = {}): Promise<LiveApp> {
  const gate = new Gate();
  gate.open(); // the probe's /slow route answers at once here
  const t = await buildTestApp({
    modules: [...modules, probeModule(gate)],
    env: { AUTH_RATE_LIMIT_MAX: '1000000000', ...env },
  });
  const server = createHttpServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    t,
    routes: mountedRoutes(t.app).filter((route) => !NOT_ENVELOPE.test(route.path)),
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

export interface DeclaredRoute {
  method: string;
  path: string;
}

/** A well-formed id for path parameters, so handlers get past the id check (the record does not exist). */
const SAMPLE_ID = '01900000-0000-7000-8000-000000000000';

/**
 * The routes the app's router holds (system routes and every module's), each with one concrete path: a
 * parameter becomes a well-formed id. @koa/router marks its dispatch middleware with the router.
 */
export function mountedRoutes(app: Koa): DeclaredRoute[] {
  const dispatch = app.middleware.find((middleware) => 'router' in middleware) as { router: Router } | undefined;
  if (!dispatch) throw new Error('the app has no router');
  return dispatch.router.stack.flatMap((layer) =>
    layer.methods
      .filter((method) => method !== 'HEAD')
      .map((method) => ({ method, path: String(layer.path).replace(/:[A-Za-z_]\w*/g, SAMPLE_ID) })),
  );
}

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
