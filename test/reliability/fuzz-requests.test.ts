import fc from 'fast-check';
import { body, contentType, cookieHeader, headers, path, target } from './support/arbitraries';
import { modules } from '../../src/modules';
import { METHODS, startLiveApp, type LiveApp } from './support/live-app';
import { rawRequest } from './support/raw-request';
import { assertWellFormed } from './support/well-formed';

// Property: whatever arrives — any JSON value or string as the body, any content type, any headers and
// cookies, any path, on every route with any method — the answer is never a 5xx, never hangs, and is
// always the envelope (or the documented empty 204). Two apps: TRUST_PROXY=0 and =1, so forwarded
// headers are fuzzed both ignored and trusted. FC_SEED replays a failing run (fast-check prints it).

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const runs = (count: number) => ({ numRuns: count, seed, endOnFailure: false });

describe('fuzzed requests never produce a 5xx, a hang or a non-envelope body', () => {
  let direct: LiveApp;
  let proxied: LiveApp;
  const pick = (behindProxy: boolean) => (behindProxy ? proxied : direct);

  beforeAll(async () => {
    [direct, proxied] = await Promise.all([
      startLiveApp(),
      startLiveApp({ TRUST_PROXY: '1', CORS_ORIGINS: 'https://app.example.com' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([direct?.close(), proxied?.close()]);
  });

  afterEach(async () => {
    // Still alive and well after the onslaught.
    for (const app of [direct, proxied]) {
      const res = await rawRequest(app.port, { method: 'GET', path: '/health/ready' });
      expect(res.status).toBe(200);
    }
  });

  it('bodies, content types, headers and cookies on every route', async () => {
    await fc.assert(
      fc.asyncProperty(
        target(direct.routes),
        body,
        fc.option(contentType),
        headers,
        fc.option(cookieHeader),
        fc.boolean(),
        async (route, text, type, extra, cookie, behindProxy) => {
          const sent: Record<string, string> = { ...extra };
          if (type !== null) sent['content-type'] = type;
          if (cookie !== null) sent.cookie = cookie;
          const res = await rawRequest(pick(behindProxy).port, {
            method: route.method,
            path: route.path,
            headers: sent,
            body: text,
          });
          assertWellFormed(res, route.method);
        },
      ),
      runs(120),
    );
  });

  it('any path with any method', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        path(direct.routes),
        fc.boolean(),
        async (method, where, behindProxy) => {
          const res = await rawRequest(pick(behindProxy).port, { method, path: where });
          assertWellFormed(res, method);
        },
      ),
      runs(120),
    );
  });

  it('a JSON body over the size limit is a 413 envelope on every route that reads a body', async () => {
    const huge = JSON.stringify({ email: 'demo@example.com', password: 'x'.repeat(200 * 1024) });
    for (const where of ['/api/auth/login', '/api/probe/things']) {
      const res = await rawRequest(direct.port, {
        method: 'POST',
        path: where,
        headers: { 'content-type': 'application/json' },
        body: huge,
      });
      assertWellFormed(res, 'POST');
      expect(res.status).toBe(413);
    }
  });

  it('fuzzes every route of every registered module, read from the mounted router', () => {
    const paths = new Set(direct.routes.map((route) => route.path));
    for (const where of ['/', '/health/ready', '/api/auth/login', '/api/auth/refresh', '/api/probe/things'])
      expect(paths).toContain(where);
    for (const factory of modules) {
      // A module that declares no route (the removed modules' migrations, say) has nothing to mount.
      const { name, routes } = factory(direct.t.services);
      const mounted = [...paths].filter((where) => where.startsWith(`/api/${name}/`) || where === `/api/${name}`);
      expect({ module: name, mounted: mounted.length > 0 }).toEqual({ module: name, mounted: routes.length > 0 });
    }
  });

  it('a known path with a method it does not declare is a 405 envelope with Allow', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/', '/api/auth/login', '/api/auth/logout', '/api/probe/things'),
        fc.constantFrom('PUT', 'PATCH', 'DELETE'),
        async (where, method) => {
          const res = await rawRequest(direct.port, { method, path: where });
          assertWellFormed(res, method);
          expect(res.status).toBe(405);
          expect(res.headers.allow).toBeTruthy();
        },
      ),
      runs(12),
    );
  });
});
