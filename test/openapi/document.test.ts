import type Router from '@koa/router';
import request from 'supertest';
import { generateDocument } from '../../src/cli/openapi';
import { route } from '../../src/http/routing/route';
import { authModule } from '../../src/modules/auth';
import type { ModuleFactory } from '../../src/services';
import { validateOpenApi } from '../support/openapi-validator';
import { probeModule } from '../support/probe-module';
import { buildTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed JSON document

const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '100000' };

/** The router the app dispatches with (@koa/router hangs it on its middleware), read independently of the document. */
function routerOf(t: TestApp): Router {
  const dispatch = t.app.middleware.find((fn) => (fn as { router?: Router }).router);
  return (dispatch as unknown as { router: Router }).router;
}

describe('GET /openapi.json: the document generated from the declarations', () => {
  let t: TestApp;
  let doc: Json;

  beforeAll(async () => {
    t = await buildTestApp({ env: ENV, modules: [authModule, probeModule()] });
    const res = await request(t.app.callback())
      .get('/openapi.json')
      .expect(200)
      .expect('Content-Type', /application\/json/);
    doc = res.body as Json;
  });
  afterAll(() => t.close());

  it('is valid OpenAPI 3.1 to an independent validator', () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = validateOpenApi(doc);
    expect(result.errors).toBeNull();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('lists every route the router dispatches, with its method, and nothing else', () => {
    const routed = new Set<string>();
    for (const layer of routerOf(t).stack) {
      const path = String(layer.path);
      if (path === '/openapi.json' || path.startsWith('/docs')) continue; // the document's own pages
      for (const method of layer.methods.filter((m) => m !== 'HEAD'))
        routed.add(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
    const documented = new Set(
      Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    expect([...documented].sort()).toEqual([...routed].sort());
    for (const expected of [
      'GET /',
      'GET /health/live',
      'GET /health/ready',
      'POST /api/auth/login',
      'POST /api/auth/refresh',
      'POST /api/auth/logout',
      'POST /api/auth/register',
      'GET /api/probe/items/{id}',
    ]) {
      expect(documented).toContain(expected);
    }
  });

  it("info.version is package.json's; the server is / without PUBLIC_URL", () => {
    expect(doc.info.version).toBe((jest.requireActual('../../package.json') as { version: string }).version);
    expect(doc.servers).toEqual([{ url: '/' }]);
  });

  it('envelope and error schemas live once, in components, and every body refers to them', () => {
    const text = JSON.stringify(doc);
    expect(text.match(/"const":"fail"/g)).toHaveLength(2); // FailEnvelope and ValidationFailEnvelope
    expect(text.match(/"const":"success"/g)).toHaveLength(1);
    expect(text.match(/"field":\{/g)).toHaveLength(1);
    for (const ops of Object.values(doc.paths as Json)) {
      for (const op of Object.values(ops as Json) as Json[]) {
        for (const [status, response] of Object.entries(op.responses as Json) as [string, Json][]) {
          const schema = response.content?.['application/json']?.schema;
          if (Number(status) >= 400) expect(schema.$ref).toMatch(/^#\/components\/schemas\/(Validation)?FailEnvelope$/);
          else if (schema) expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/SuccessEnvelope' });
        }
      }
    }
  });

  it("derives each operation's error answers from what the route declares", () => {
    const statuses = (method: string, path: string) => Object.keys(doc.paths[path][method].responses).map(Number);
    // A public route without schemas: its data, and the 431 (the HTTP server's header limit) and 500 every route can give.
    expect(statuses('get', '/')).toEqual([200, 431, 500]);
    // Login: a body (400, 413, 415, 422), its own 401 and 503, the module's rate limit (429, 503).
    expect(statuses('post', '/api/auth/login')).toEqual([200, 400, 401, 413, 415, 422, 429, 431, 500, 503]);
    // Logout: the token check (401), the CSRF guard's 403, no body (204).
    expect(statuses('post', '/api/auth/logout')).toEqual([204, 401, 403, 429, 431, 500, 503]);
    // A role route: 401 and 403; params and query: 422; the handler's declared 404.
    expect(statuses('get', '/api/probe/admin')).toEqual([200, 401, 403, 431, 500]);
    expect(statuses('get', '/api/probe/items/{id}')).toEqual([200, 404, 422, 431, 500]);
    // Registration without email verification (this app): 201 with the user, 409 for a taken address; never the 202 of verification.
    expect(statuses('post', '/api/auth/register')).toEqual([201, 400, 409, 413, 415, 422, 429, 431, 500, 503]);
  });

  it("documents the rate limit's headers on 429 and the Bearer challenge on 401", () => {
    const login = doc.paths['/api/auth/login'].post.responses;
    expect(Object.keys(login['429'].headers).sort()).toEqual([
      'Cache-Control',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'X-Request-Id',
    ]);
    // What the module's middleware adds to every answer is on the successes too; other modules' routes lack it.
    expect(Object.keys(login['200'].headers).sort()).toEqual([
      'Cache-Control',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Set-Cookie',
      'X-Request-Id',
    ]);
    expect(Object.keys(doc.paths['/api/probe/admin'].get.responses['200'].headers)).toEqual(['X-Request-Id']);
    expect(login['422'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ValidationFailEnvelope',
    });
    // Every 401 of logout is the token check's, which always sends the challenge: required. Password change also
    // answers 401 for a wrong current password, without it: stated, not required.
    expect(doc.paths['/api/auth/logout'].post.responses['401'].headers['WWW-Authenticate']).toMatchObject({
      required: true,
      schema: { type: 'string' },
    });
    expect(doc.paths['/api/auth/password'].post.responses['401'].headers['WWW-Authenticate']).toEqual({
      $ref: '#/components/headers/WWW-Authenticate',
    });
    expect(login['429'].headers['Retry-After']).toMatchObject({ required: true });
    // The module's no-store middleware runs first, so every answer under /api/auth carries it.
    for (const status of ['200', '401', '422', '429', '500'])
      expect(login[status].headers['Cache-Control']).toMatchObject({ required: true });
    expect(doc.components.headers['X-Request-Id']).toMatchObject({ required: true });
    // The 431 is written by the HTTP server before Koa runs: no X-Request-Id, no module headers.
    expect(login['431'].headers).toBeUndefined();
  });

  it('bearerAuth on protected routes (roles listed), cookieAuth on refresh, an explicit empty list on public routes', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(doc.components.securitySchemes.cookieAuth).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'refreshToken',
    });
    expect(doc.paths['/api/auth/logout'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/probe/admin'].get.security).toEqual([{ bearerAuth: ['admin', 'owner'] }]);
    expect(doc.paths['/api/auth/refresh'].post.security).toEqual([{ cookieAuth: [] }]);
    expect(doc.paths['/api/auth/login'].post.security).toEqual([]);
  });

  it('describes parameters and request bodies from the schemas', () => {
    const items = doc.paths['/api/probe/items/{id}'].get;
    expect(items.operationId).toBe('getProbeItemsById');
    expect(items.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
      { name: 'verbose', in: 'query', required: false, schema: { type: 'boolean' } },
      {
        name: 'tags',
        in: 'query',
        required: false,
        schema: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 3 },
      },
    ]);
    expect(doc.paths['/api/probe/things/{id}'].delete.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1 } },
    ]);
    expect(doc.paths['/api/probe/versioned'].get.parameters).toEqual([
      { name: 'x-api-version', in: 'header', required: true, schema: { type: 'integer', minimum: 1, maximum: 2 } },
    ]);
    const login = doc.paths['/api/auth/login'].post;
    expect(login.operationId).toBe('postAuthLogin');
    expect(login.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['email', 'password'],
    });
  });
});

describe('the document at start-up', () => {
  it('servers follow PUBLIC_URL', async () => {
    const t = await buildTestApp({ env: { PUBLIC_URL: 'https://api.example.com' } });
    try {
      const res = await request(t.app.callback()).get('/openapi.json').expect(200);
      expect(res.body.servers).toEqual([{ url: 'https://api.example.com' }]);
    } finally {
      await t.close();
    }
  });

  const moduleWith =
    (...routes: ReturnType<typeof route>[]): ModuleFactory =>
    () => ({ name: 'broken', routes });
  const handler = () => ({});

  it('two operations with one operationId fail start-up, naming both', async () => {
    const factory = moduleWith(
      route({ method: 'GET', path: '/a', access: 'public', operationId: 'same', handler }),
      route({ method: 'GET', path: '/b', access: 'public', operationId: 'same', handler }),
    );
    await expect(buildTestApp({ modules: [factory] })).rejects.toThrow(
      /GET \/api\/broken\/b: operationId 'same' is already used by route GET \/api\/broken\/a/,
    );
  });

  it('a security scheme the module does not define fails start-up', async () => {
    const factory = moduleWith(route({ method: 'GET', path: '/a', access: 'public', security: ['apiKey'], handler }));
    await expect(buildTestApp({ modules: [factory] })).rejects.toThrow(/security names 'apiKey'/);
  });

  it('npm run openapi builds the whole document without a server or a database connection', () => {
    const doc = JSON.parse(generateDocument()) as Json;
    expect(validateOpenApi(doc).valid).toBe(true);
    // The registered modules' routes (a generated module adds its own after these).
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/',
        '/health/live',
        '/health/ready',
        '/api/auth/login',
        '/api/auth/refresh',
        '/api/auth/logout',
        '/api/auth/logout-all',
        '/api/auth/password',
        '/api/auth/register',
        '/api/users/me',
        '/api/users',
        '/api/users/{id}',
      ]),
    );
  });
});
