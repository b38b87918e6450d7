import { Type } from '@sinclair/typebox';
import request from 'supertest';
import { route } from '../../src/http/routing/route';
import type { ModuleFactory } from '../../src/services';
import { probeModule } from '../support/probe-module';
import { buildTestApp, type TestApp } from '../support/test-app';

// Params, query and headers declared on a route: validated (422 with `params.*`, `query.*`, `headers.*`
// field paths), coerced to the schema's types, defaults applied, unknown query parameters refused.

describe('params, query and headers from the declaration', () => {
  let t: TestApp;
  const api = () => request(t.app.callback());

  beforeAll(async () => {
    t = await buildTestApp({ env: { USER_STORE: 'database' }, modules: [probeModule()] });
  });
  afterAll(() => t.close());

  it('coerces params and query to the schema types and fills in declared defaults', async () => {
    const res = await api().get('/api/probe/items/7').expect(200);
    expect(res.body.data).toEqual({ id: 7, limit: 20, verbose: false, tags: [] });
    const full = await api().get('/api/probe/items/7?limit=5&verbose=true&tags=a&tags=b').expect(200);
    expect(full.body.data).toEqual({ id: 7, limit: 5, verbose: true, tags: ['a', 'b'] });
    // A lone value for an array parameter is a one-element array.
    expect((await api().get('/api/probe/items/7?tags=solo').expect(200)).body.data.tags).toEqual(['solo']);
  });

  it('a bad path parameter is a 422 naming params.<name>', async () => {
    for (const id of ['abc', '0', '1.5', '-3', '%20']) {
      const res = await api().get(`/api/probe/items/${id}`).expect(422);
      expect(res.body).toEqual({
        status: 'fail',
        message: 'Validation failed',
        errors: [{ field: 'params.id', message: expect.any(String) }],
      });
    }
  });

  it('bad query values are a 422 naming query.<name>, every one at once', async () => {
    const res = await api().get('/api/probe/items/7?limit=500&verbose=maybe').expect(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'query.limit', message: expect.stringContaining('100') },
        { field: 'query.verbose', message: expect.any(String) },
      ]),
    );
    expect(res.body.errors).toHaveLength(2);
    const items = await api().get('/api/probe/items/7?tags=a&tags=&tags=c').expect(422);
    expect(items.body.errors).toEqual([{ field: 'query.tags.1', message: expect.any(String) }]);
    // Two values for a single-valued parameter cannot become one number.
    const twice = await api().get('/api/probe/items/7?limit=1&limit=2').expect(422);
    expect(twice.body.errors).toEqual([{ field: 'query.limit', message: expect.any(String) }]);
  });

  it('an unknown query parameter is refused unless the schema opts in', async () => {
    const res = await api().get('/api/probe/items/7?limit=5&sort=name').expect(422);
    expect(res.body.errors).toEqual([{ field: 'query.sort', message: 'is not allowed' }]);
    const proto = await api().get('/api/probe/items/7?__proto__=x').expect(422);
    expect(proto.body.errors).toEqual([{ field: 'query.__proto__', message: 'is not allowed' }]);
    const open = await api().get('/api/probe/search?q=koa&utm_source=mail').expect(200);
    expect(open.body.data).toEqual({ q: 'koa', extra: ['utm_source'] });
    const missing = await api().get('/api/probe/search?utm_source=mail').expect(422);
    expect(missing.body.errors).toEqual([{ field: 'query.q', message: 'is required' }]);
  });

  it('a route without a query schema does not look at the query string', async () => {
    await api().get('/api/probe/public?anything=goes&x').expect(200);
  });

  it('declared headers are validated and coerced after the token check', async () => {
    const token = (await t.signIn('user')).authorization.slice('Bearer '.length);
    await api().get('/api/probe/versioned').set('X-Api-Version', 'nope').expect(401); // the token check runs first
    const missing = await api().get('/api/probe/versioned').set('Authorization', `Bearer ${token}`).expect(422);
    expect(missing.body.errors).toEqual([{ field: 'headers.x-api-version', message: 'is required' }]);
    const bad = await api()
      .get('/api/probe/versioned')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Api-Version', '3')
      .expect(422);
    expect(bad.body.errors).toEqual([{ field: 'headers.x-api-version', message: expect.any(String) }]);
    const ok = await api()
      .get('/api/probe/versioned')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Api-Version', '2')
      .expect(200);
    expect(ok.body.data).toEqual({ version: 2 });
  });
});

describe('request-part declarations are checked at start-up', () => {
  const moduleWith =
    (definition: object): ModuleFactory =>
    () => ({
      name: 'broken',
      routes: [route({ method: 'GET', path: '/things/:id', access: 'public', handler: () => ({}), ...definition })],
    });

  it.each([
    [
      'params naming a parameter the path lacks',
      { params: Type.Object({ id: Type.String(), other: Type.String() }) },
      /params schema names \[id, other\] but the path has \[id\]/,
    ],
    ['a params schema that is not an object', { params: Type.String() }, /params schema must be of type object/],
    ['a query schema without properties', { query: { type: 'object' } }, /query schema must list its parameters/],
    [
      'an invalid query schema',
      { query: { type: 'object', properties: { limit: { type: 'nonsense' } } } },
      /invalid query schema/,
    ],
    [
      'an upper-case header name',
      { headers: Type.Object({ 'X-Version': Type.String() }) },
      /header names .* must be lower-case/,
    ],
    ['responses keyed by an error status', { responses: { 404: null } }, /responses must be keyed by statuses 200–399/],
    ['errors keyed by a success status', { errors: { 200: 'fine' } }, /errors must be keyed by statuses 400–599/],
    [
      'a status that is not declared',
      { status: 201, responses: { 200: Type.Object({}) } },
      /status 201 is not among the declared responses/,
    ],
  ])('%s fails start-up, naming the route', async (_name, definition, message) => {
    await expect(buildTestApp({ modules: [moduleWith(definition)] })).rejects.toThrow(message);
    await expect(buildTestApp({ modules: [moduleWith(definition)] })).rejects.toThrow(/GET \/api\/broken\/things\/:id/);
  });
});
