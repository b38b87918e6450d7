import request from 'supertest';
import { buildTestApp, type TestApp } from '../support/test-app';
import { probeModule } from '../support/probe-module';

describe('request bodies: JSON only, size limit, malformed JSON, validation', () => {
  let t: TestApp;
  const post = () => request(t.app.callback()).post('/api/probe/things');

  beforeAll(async () => {
    t = await buildTestApp({ modules: [probeModule()], env: { BODY_LIMIT: '1kb' } });
  });
  afterAll(() => t.close());

  it('runs the handler for a valid body', async () => {
    const res = await post().send({ email: 'a@example.com', name: 'Ada' }).expect(201);
    expect(res.body).toEqual({ status: 'success', data: { created: 'Ada' } });
  });

  it('accepts an application/*+json media type with a charset', async () => {
    await post()
      .set('Content-Type', 'application/vnd.api+json; charset=utf-8')
      .send(JSON.stringify({ email: 'a@example.com', name: 'Ada' }))
      .expect(201);
  });

  it('422 names each missing property by its name', async () => {
    const res = await post().send({}).expect(422);
    expect(res.body.status).toBe('fail');
    expect(res.body.message).toBe('Validation failed');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'name']);
    for (const error of res.body.errors) expect(typeof error.message).toBe('string');
  });

  it('422 names nested and array properties by their path', async () => {
    const res = await post()
      .send({ email: 'not-an-email', name: '', address: { city: 7 }, tags: ['ok', 3], extra: true })
      .expect(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'address.city',
      'email',
      'extra',
      'name',
      'tags.1',
    ]);
    const missingCity = await post().send({ email: 'a@example.com', name: 'A', address: {} }).expect(422);
    expect(missingCity.body.errors).toEqual([{ field: 'address.city', message: 'is required' }]);
  });

  it('422 for a JSON array where an object is expected, naming the body', async () => {
    const res = await post().send([1, 2]).expect(422);
    expect(res.body.errors[0].field).toBe('body');
  });

  it('no body at all validates as an empty object (422, not 400 or 404)', async () => {
    const res = await post().expect(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'name']);
  });

  it('400 for malformed JSON', async () => {
    const res = await post().set('Content-Type', 'application/json').send('{"email": "a@b.c",').expect(400);
    expect(res.body).toEqual({ status: 'fail', message: expect.stringMatching(/malformed json/i) });
    await post().set('Content-Type', 'application/json').send('"just a string"').expect(400);
  });

  it('415 for a body that is not JSON', async () => {
    const form = await post().type('form').send('email=a@example.com&name=x').expect(415);
    expect(form.body.status).toBe('fail');
    await post().set('Content-Type', 'text/plain').send('hello').expect(415);
  });

  it('413 for a body over the limit', async () => {
    const res = await post()
      .send({ email: 'a@example.com', name: 'x'.repeat(2000) })
      .expect(413);
    expect(res.body).toEqual({ status: 'fail', message: expect.stringMatching(/too large/i) });
  });

  it('rejects __proto__ and constructor.prototype keys and pollutes nothing', async () => {
    const proto = await post()
      .set('Content-Type', 'application/json')
      .send('{"email":"a@example.com","name":"x","__proto__":{"polluted":true}}')
      .expect(400);
    expect(proto.body.status).toBe('fail');
    const ctor = await post()
      .set('Content-Type', 'application/json')
      .send('{"email":"a@example.com","name":"x","address":{"city":"c","constructor":{"prototype":{"polluted":true}}}}')
      .expect(400);
    expect(ctor.body.status).toBe('fail');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
