import request from 'supertest';
import { PasswordHasher } from '../../src/auth/passwords';
import { buildAuthApp, DEMO, setCookies } from '../support/auth-helpers';
import type { TestApp } from '../support/test-app';

describe('POST /api/auth/login: refusals', () => {
  let app: TestApp;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    app = await buildAuthApp();
    http = request(app.app.callback());
  });
  afterAll(() => app.close());
  afterEach(() => jest.restoreAllMocks());

  it('wrong password and unknown user: the same 401, no cookie', async () => {
    const wrong = await http
      .post('/api/auth/login')
      .send({ ...DEMO, password: 'not-the-password' })
      .expect(401);
    const unknown = await http
      .post('/api/auth/login')
      .send({ email: 'nobody@example.com', password: DEMO.password })
      .expect(401);
    expect(wrong.body).toEqual({ status: 'fail', message: 'Invalid email or password' });
    expect(unknown.body).toEqual(wrong.body);
    expect(setCookies(wrong)).toEqual([]);
    expect(setCookies(unknown)).toEqual([]);
  });

  it('an unknown user costs one argon2 verification too (against the dummy hash)', async () => {
    const verify = jest.spyOn(PasswordHasher.prototype, 'verify');
    await http.post('/api/auth/login').send({ email: 'nobody@example.com', password: 'whatever' }).expect(401);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0][0]).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    await expect(verify.mock.results[0].value).resolves.toBe(false);
  });

  it('an empty JSON body is a 422 naming both fields (not a 404)', async () => {
    const response = await http.post('/api/auth/login').send({}).expect(422);
    expect(response.body).toEqual({
      status: 'fail',
      message: 'Validation failed',
      errors: expect.arrayContaining([
        expect.objectContaining({ field: 'email' }),
        expect.objectContaining({ field: 'password' }),
      ]),
    });
  });

  it.each([
    ['email as a NoSQL operator object', { email: { $gt: '' }, password: DEMO.password }, 'email'],
    ['password as a NoSQL operator object', { email: DEMO.email, password: { $ne: null } }, 'password'],
    ['email as $regex', { email: { $regex: '.*' }, password: { $exists: true } }, 'email'],
    ['number as password', { email: DEMO.email, password: 12345678 }, 'password'],
    ['array as email', { email: [DEMO.email], password: DEMO.password }, 'email'],
    ['not an email', { email: 'demo', password: DEMO.password }, 'email'],
    ['email over 254 characters', { email: `${'a'.repeat(250)}@example.com`, password: DEMO.password }, 'email'],
    ['empty password', { email: DEMO.email, password: '' }, 'password'],
    ['password over 128 characters', { email: DEMO.email, password: 'p'.repeat(129) }, 'password'],
  ])('%s → 422', async (_case, body, field) => {
    const response = await http.post('/api/auth/login').send(body).expect(422);
    expect(response.body.status).toBe('fail');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    expect(setCookies(response)).toEqual([]);
  });

  it('a body that is not an object → 422; other properties are ignored', async () => {
    await http.post('/api/auth/login').send([DEMO]).expect(422);
    await http
      .post('/api/auth/login')
      .send({ ...DEMO, role: 'admin', extra: { $gt: '' } })
      .expect(200);
  });

  it('a password of exactly 128 characters is checked (401), not refused by the schema', async () => {
    await http
      .post('/api/auth/login')
      .send({ email: DEMO.email, password: 'p'.repeat(128) })
      .expect(401);
  });

  it('form-encoded bodies → 415; malformed JSON → 400', async () => {
    await http.post('/api/auth/login').type('form').send('email=demo%40example.com&password=demo-password').expect(415);
    await http.post('/api/auth/login').set('Content-Type', 'application/json').send('{"email":').expect(400);
  });

  it('GET on the login route → 405 with Allow: POST', async () => {
    const response = await http.get('/api/auth/login').expect(405);
    expect(response.headers.allow).toContain('POST');
    expect(response.body.status).toBe('fail');
  });

  it('registration is off by default: no such route', async () => {
    const response = await http
      .post('/api/auth/register')
      .send({ name: 'A', email: 'a@example.com', password: 'password-1' })
      .expect(404);
    expect(response.body.status).toBe('fail');
  });
});
