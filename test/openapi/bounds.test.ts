import request from 'supertest';
import type { Response } from 'supertest';
import { modules } from '../../src/modules';
import { useListeningApp } from '../support/listening-app';
import { DocumentConformance } from '../support/openapi-conformance';
import { buildTestApp, type TestApp } from '../support/test-app';

// The document as tight as the service: what the service refuses or answers at its edges (a NUL in a path id
// or a password, a request line over the HTTP server's limit) is a status the operation declares, with the body
// and headers it states; password rules the schema cannot hold are in its description.

const ENV = { USER_STORE: 'database', AUTH_REGISTRATION: 'true', AUTH_RATE_LIMIT_MAX: '100000' };

describe('the document states the bounds the service enforces', () => {
  let t: TestApp;
  let conformance: DocumentConformance;
  let document: {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }> };
        }
      >
    >;
  };
  const api = () => request(t.app.callback());

  beforeAll(async () => {
    t = await buildTestApp({ env: ENV, modules });
    document = (await api().get('/openapi.json').expect(200)).body;
    conformance = new DocumentConformance(document as unknown as Record<string, unknown>);
  });
  afterAll(() => t.close());

  it('a NUL in a path id is a 422 the operation declares, naming params.id', async () => {
    const { authorization } = await t.signIn('admin');
    const res = await api().get('/api/users/a%00b').set('Authorization', authorization).expect(422);
    expect(res.body.errors).toEqual([{ field: 'params.id', message: expect.stringMatching(/NUL/) }]);
    conformance.expectConforms('GET', '/api/users/{id}', res);
  });

  it('passwords: no NUL and the length bounds in the schema, the strength rules in the description', async () => {
    const register =
      document.paths['/api/auth/register'].post.requestBody.content['application/json'].schema.properties.password;
    expect(register).toMatchObject({ minLength: 12, maxLength: 128, pattern: '^[^\\u0000]*$' });
    expect(register.description).toMatch(/common.*guess/);
    const login =
      document.paths['/api/auth/login'].post.requestBody.content['application/json'].schema.properties.password;
    expect(login).toMatchObject({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000]*$' });
    const res = await api()
      .post('/api/auth/register')
      .send({ name: 'N', email: 'nul@example.com', password: 'lantern harbour\u0000quiet seven' })
      .expect(422);
    expect(res.body.errors).toEqual([{ field: 'password', message: expect.stringMatching(/NUL/) }]);
    conformance.expectConforms('POST', '/api/auth/register', res);
    // The pattern says the same as the service: ajv (the document's dialect) refuses the NUL too.
    expect(new RegExp(String(register.pattern), 'u').test('a\u0000b')).toBe(false);
  });

  it('every 201 carries its Location and every Koa answer its X-Request-Id, both required', async () => {
    const created = await api()
      .post('/api/auth/register')
      .send({ name: 'L', email: 'bounds@example.com', password: 'lantern harbour quiet seven' })
      .expect(201);
    conformance.expectConforms('POST', '/api/auth/register', created);
    const withoutLocation = {
      status: created.status,
      body: created.body,
      text: created.text,
      headers: { ...created.headers, location: undefined },
    } as unknown as Response;
    expect(conformance.problems('POST', '/api/auth/register', withoutLocation)).toEqual([
      expect.stringMatching(/required header Location missing/),
    ]);
  });
});

describe('a request line over the HTTP server limit', () => {
  const listening = useListeningApp({ env: ENV, modules });

  it('a long query string is answered 431 with the fail envelope, as the operation declares', async () => {
    const document = (await request(listening.app().app.callback()).get('/openapi.json').expect(200)).body;
    const conformance = new DocumentConformance(document);
    const { authorization } = await listening.app().signIn('admin');
    // 3,000 characters of é: 18,000 bytes once percent-encoded, over Node's 16 KiB before any route runs (a
    // list's 4,000-character `[in]` parameter can do the same).
    const answer = await fetch(
      `http://127.0.0.1:${listening.port()}/api/users?limit=5&cursor=${encodeURIComponent('é'.repeat(3000))}`,
      { headers: { authorization } },
    );
    expect(answer.status).toBe(431);
    const body = await answer.json();
    expect(body).toEqual({ status: 'fail', message: 'Request headers too large' });
    const res = {
      status: answer.status,
      body,
      headers: Object.fromEntries(answer.headers),
      text: JSON.stringify(body),
    } as unknown as Response;
    conformance.expectConforms('GET', '/api/users', res);
  });
});
