import request from 'supertest';
import { Type } from '@sinclair/typebox';
import { route, type ModuleFactory } from '../../src/modules/kit';
import { modules } from '../../src/modules';
import { StoreUnavailableError } from '../../src/stores/errors';
import { probeModule } from '../support/probe-module';
import { buildTestApp, type TestApp } from '../support/test-app';

// The document as a client developer's generator reads it, and the answers it describes: payloads that are
// always there, 503 wherever the database can be missing, public operations that say so, one error per field,
// and query numbers read as the schema says.

const nullableModule: ModuleFactory = () => ({
  name: 'nullable',
  routes: [
    route({
      method: 'POST',
      path: '/',
      access: 'public',
      body: Type.Object(
        { pinned: Type.Union([Type.Boolean(), Type.Null()]), size: Type.Union([Type.Literal('s'), Type.Literal('m')]) },
        { additionalProperties: false },
      ),
      handler: (ctx) => ctx.request.body,
    }),
  ],
});

describe('the document and answers for client generators', () => {
  let t: TestApp;
  let document: {
    info: Record<string, unknown>;
    paths: Record<
      string,
      Record<
        string,
        { responses: Record<string, { content?: Record<string, { schema: unknown }> }>; security?: unknown[] }
      >
    >;
    components: { schemas: Record<string, unknown> };
  };
  beforeAll(async () => {
    t = await buildTestApp({ env: { USER_STORE: 'database' }, modules: [...modules, probeModule(), nullableModule] });
    document = (await request(t.app.callback()).get('/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());

  it('every success payload is required in its envelope', () => {
    const me = document.paths['/api/users/me'].get.responses['200'].content!['application/json'].schema as {
      allOf: { required?: string[] }[];
    };
    expect(me.allOf[1].required).toEqual(['data']);
    // A 422's body is a type of its own, `errors` required and never empty; every other failure has no `errors`.
    const validation = document.components.schemas.ValidationFailEnvelope as {
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(validation.required).toEqual(expect.arrayContaining(['errors']));
    expect(validation.properties.errors).toMatchObject({ type: 'array', minItems: 1 });
    const other = document.components.schemas.FailEnvelope as {
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    expect(Object.keys(other.properties)).not.toContain('errors');
    expect(other.additionalProperties).toBe(false);
  });

  it('declares 503 on every operation of a module that keeps data, none on one that does not', () => {
    for (const [path, operations] of Object.entries(document.paths).filter(
      ([path]) => path.startsWith('/api/users') || path.startsWith('/api/auth'),
    )) {
      for (const [method, operation] of Object.entries(operations))
        expect([`${method} ${path}`, Object.keys(operation.responses)]).toEqual([
          `${method} ${path}`,
          expect.arrayContaining(['503']),
        ]);
    }
    expect(Object.keys(document.paths['/api/probe/public'].get.responses)).not.toContain('503');
  });

  it('states security [] on public operations, names the license, bounds page items', () => {
    expect(document.paths['/'].get.security).toEqual([]);
    expect(document.paths['/api/auth/login'].post.security).toEqual([]);
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    const page = JSON.stringify(document.paths['/api/users'].get.responses['200']);
    expect(page).toContain('"maxItems":100');
  });

  it('answers one error per field, the one the caller meant', async () => {
    const res = await request(t.app.callback()).post('/api/nullable').send({ pinned: 'yes', size: 'xl' }).expect(422);
    expect(res.body.errors).toEqual([
      { field: 'pinned', message: 'must be boolean' },
      { field: 'size', message: expect.any(String) },
    ]);
  });

  it.each(['0x10', '1e1', '+5', ' 5', '5.0'])(
    'refuses limit=%j: query integers are decimal digits only',
    async (limit) => {
      const { authorization } = await t.signIn('admin');
      const res = await request(t.app.callback())
        .get(`/api/users?limit=${encodeURIComponent(limit)}`)
        .set('Authorization', authorization)
        .expect(422);
      expect(res.body.errors).toEqual([{ field: 'query.limit', message: 'must be an integer in decimal digits' }]);
    },
  );

  it('a 201 carries Location, declared in the document', async () => {
    const app = await buildTestApp({
      env: { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '1000' },
      modules,
    });
    try {
      const created = await request(app.app.callback())
        .post('/api/auth/register')
        .send({ name: 'L', email: 'location@example.com', password: 'lantern harbour quiet seven' })
        .expect(201);
      expect(created.headers.location).toBe(`/api/users/${created.body.data.id}`);
      const doc = (await request(app.app.callback()).get('/openapi.json').expect(200)).body;
      expect(doc.paths['/api/auth/register'].post.responses['201'].headers.Location).toMatchObject({
        required: true,
        schema: { type: 'string' },
      });
    } finally {
      await app.close();
    }
  });

  it('answers a 503 with Retry-After, as declared', async () => {
    const store = t.services.users as { findById: (id: string) => Promise<unknown> };
    const { authorization } = await t.signIn();
    const original = store.findById;
    store.findById = async () => {
      // the database gone: the role route's read of the caller fails
      throw new StoreUnavailableError();
    };
    try {
      const res = await request(t.app.callback()).get('/api/users').set('Authorization', authorization).expect(503);
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      store.findById = original;
    }
  });
});
