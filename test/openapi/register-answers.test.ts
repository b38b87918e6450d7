import request from 'supertest';
import { generateDocument } from '../../src/cli/openapi';
import { authModule } from '../../src/modules/auth';
import { REGISTRATION_ACCEPTED } from '../../src/modules/auth/routes';
import { useMailApp } from '../support/mail-app';
import { buildTestApp } from '../support/test-app';
import { testEngines } from '../support/engines';

// POST /api/auth/register declares what the deployment answers, not both: 201 with the user when email
// verification is off, 202 with a message when it is on. A client generated from the served document reads
// `data` as one shape. The committed openapi.json is generated with verification on (src/cli/openapi.ts).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed JSON document

const responsesOf = (document: Json) => document.paths['/api/auth/register'].post.responses as Json;
const successes = (document: Json) => Object.keys(responsesOf(document)).filter((status) => status.startsWith('2'));

describe('POST /api/auth/register in the served document', () => {
  it('declares 201 with the user and a 409, no 202, when email verification is off', async () => {
    const t = await buildTestApp({ env: { USER_STORE: 'database', AUTH_REGISTRATION: 'true' }, modules: [authModule] });
    try {
      const document = (await request(t.app.callback()).get('/openapi.json').expect(200)).body as Json;
      expect(successes(document)).toEqual(['201']);
      expect(responsesOf(document)).toHaveProperty('409');
      const answer = await request(t.app.callback())
        .post('/api/auth/register')
        .send({ name: 'N', email: 'off@example.com', password: 'lantern harbour quiet seven' })
        .expect(201);
      expect(Object.keys(answer.body.data).sort()).toEqual(['email', 'id', 'name', 'role']);
    } finally {
      await t.close();
    }
  });

  const sqlite = testEngines().find((target) => target.engine === 'sqlite')!;
  describe('with email verification on', () => {
    const { http } = useMailApp(sqlite, { EMAIL_VERIFICATION: 'required' });
    it('declares 202 with a message only (no 201, no 409: a taken address answers alike)', async () => {
      const document = (await http().get('/openapi.json').expect(200)).body as Json;
      expect(successes(document)).toEqual(['202']);
      expect(responsesOf(document)).not.toHaveProperty('409');
      const answer = await http()
        .post('/api/auth/register')
        .send({ name: 'N', email: 'on@example.com', password: 'lantern harbour quiet seven' })
        .expect(202);
      expect(answer.body.data).toEqual({ message: REGISTRATION_ACCEPTED });
    });
  });

  it('is declared in the committed document as the generating configuration answers: 202 (verification on)', () => {
    const document = JSON.parse(generateDocument()) as Json;
    expect(successes(document)).toEqual(['202']);
    expect(document.paths['/api/auth/register'].post.description).toMatch(/verification is on/);
  });
});
