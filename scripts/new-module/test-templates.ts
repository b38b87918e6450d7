import { spelling } from './field-types';
import type { ModuleSpec } from './spec';
import { names } from './templates';

// The generated module's own tests: its store on every engine (like the token store's contract suite) and
// its routes over real HTTP on SQLite.

function bodies(spec: ModuleSpec) {
  const value = (index: 0 | 1) => spec.fields.map((f) => `${f.name}: ${spelling(f).samples[index]}`).join(', ');
  const required = spec.fields.filter((f) => !f.optional).map((f) => `${f.name}: ${spelling(f).samples[0]}`).join(', ');
  return { full: `{ ${value(0)} }`, other: `{ ${value(1)} }`, required: `{ ${required} }` };
}

/** In a record: datetimes as Date (store) or ISO strings (HTTP). */
function expected(spec: ModuleSpec, index: 0 | 1, as: 'store' | 'http'): string {
  return `{ ${spec.fields
    .map((f) => {
      const sample = spelling(f).samples[index];
      return `${f.name}: ${f.type === 'datetime' && as === 'store' ? `new Date(${sample})` : sample}`;
    })
    .join(', ')} }`;
}

export function storeTestFile(spec: ModuleSpec): string {
  const n = names(spec);
  const b = bodies(spec);
  const toFields = (body: string) => (spec.fields.some((f) => f.type === 'datetime') ? `fields(${body})` : body);
  const datetimes = spec.fields.filter((f) => f.type === 'datetime');
  const fieldsHelper = datetimes.length
    ? `
/** A body's values as the store takes them: datetimes as Date. */
function fields(body: Record<string, unknown>): ${n.fields} {
  const converted = { ...body };
  for (const name of [${datetimes.map((f) => `'${f.name}'`).join(', ')}]) if (typeof converted[name] === 'string') converted[name] = new Date(converted[name] as string);
  return converted as unknown as ${n.fields};
}
`
    : '';
  return `import { loadConfig } from '../../../src/config/config';
import { createLogger } from '../../../src/logger';
import { ${n.storeConst} } from '../../../src/modules/${spec.name}/store';
import type { ${n.fields}, ${n.store} } from '../../../src/modules/${spec.name}/types';
import { createDatabase } from '../../../src/stores/create-database';
import { newId } from '../../../src/stores/ids';
import type { Database } from '../../../src/stores/types';
import { testEngines, type StartedEngine } from '../../support/engines';

// The ${n.label} store on every engine, with the same cases (see test/support/engines.ts for where each
// engine comes from and why one may be skipped).

const logger = createLogger({ env: 'test', logLevel: 'silent' });
const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const owner = () => \`owner-\${newId()}\`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const full: ${n.fields} = ${toFields(b.full)};
const other: ${n.fields} = ${toFields(b.other)};
const required: ${n.fields} = ${toFields(b.required)};
${fieldsHelper}
const engines = testEngines();
for (const target of engines.filter((engine) => engine.skipReason)) console.warn(\`[${spec.name} store] \${target.engine}: SKIPPED — \${target.skipReason}\`);

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(\`${spec.name} store on \${target.label}\`, () => {
    let started: StartedEngine | undefined;
    let database: Database;
    let store: ${n.store};

    beforeAll(async () => {
      started = await target.start();
      const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: started.url, DATABASE_TIMEOUT: '2s' });
      database = createDatabase(config, logger, [${n.storeConst}], { cleanupJob: false, connectAttempts: 3 });
      await database.connect();
      await database.migrate();
      store = database.store(${n.storeConst});
    }, 240_000);

    afterAll(async () => {
      await database?.close();
      await started?.stop();
    }, 60_000);

    it('creates a record with a UUIDv7 id, its owner and millisecond timestamps, and reads it back', async () => {
      const ownerId = owner();
      const created = await store.create(ownerId, full);
      expect(created).toMatchObject({ ...full, ownerId, id: expect.stringMatching(UUIDV7) });
      expect(created.createdAt).toBeInstanceOf(Date);
      expect(created.updatedAt.getTime()).toBe(created.createdAt.getTime());
      expect(await store.findById(created.id, { ownerId })).toEqual(created);
    });

    it('keeps optional fields empty (null) when they are not given', async () => {
      const created = await store.create(owner(), required);
      expect(await store.findById(created.id, {})).toEqual(created);
${spec.fields
  .filter((f) => f.optional)
  .map((f) => `      expect(created.${f.name}).toBeNull();`)
  .join('\n')}
    });

    it("finds a record only in its owner's scope, or with no owner in the scope (admins)", async () => {
      const created = await store.create(owner(), full);
      expect(await store.findById(created.id, { ownerId: owner() })).toBeNull();
      expect(await store.findById(created.id, {})).toEqual(created);
      expect(await store.findById(newId(), {})).toBeNull();
      expect(await store.findById('not-an-id', {})).toBeNull();
    });

    it('lists newest first, a page at a time, with the total', async () => {
      const ownerId = owner();
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await store.create(ownerId, full)).id);
      await store.create(owner(), full); // someone else's
      const first = await store.list({ ownerId }, { limit: 2, offset: 0 });
      expect(first).toMatchObject({ total: 5, limit: 2, offset: 0 });
      expect(first.items.map((item) => item.id)).toEqual([ids[4], ids[3]]);
      const last = await store.list({ ownerId }, { limit: 2, offset: 4 });
      expect(last.items.map((item) => item.id)).toEqual([ids[0]]);
      expect((await store.list({}, { limit: 100, offset: 0 })).total).toBeGreaterThanOrEqual(6);
    });

    it('updates in scope only, refreshing updatedAt', async () => {
      const ownerId = owner();
      const created = await store.create(ownerId, full);
      await pause(5);
      expect(await store.update(created.id, { ownerId: owner() }, other)).toBeNull();
      const updated = await store.update(created.id, { ownerId }, other);
      expect(updated).toMatchObject({ ...other, id: created.id, ownerId });
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
      expect(updated!.createdAt).toEqual(created.createdAt);
      expect(await store.findById(created.id, { ownerId })).toEqual(updated);
    });

    it('deletes in scope only; deleting again or an unknown id finds nothing', async () => {
      const ownerId = owner();
      const created = await store.create(ownerId, full);
      expect(await store.delete(created.id, { ownerId: owner() })).toBe(false);
      expect(await store.delete(created.id, { ownerId })).toBe(true);
      expect(await store.delete(created.id, { ownerId })).toBe(false);
      expect(await store.delete('not-an-id', {})).toBe(false);
      expect(await store.findById(created.id, {})).toBeNull();
    });
  });
}
`;
}

export function routesTestFile(spec: ModuleSpec): string {
  const n = names(spec);
  const b = bodies(spec);
  const firstRequired = spec.fields.find((f) => !f.optional)!;
  const path = `/api/${spec.name}`;
  return `import request from 'supertest';
import { ${n.module} } from '../../../src/modules/${spec.name}';
import { buildTestApp, type TestApp } from '../../support/test-app';

// /api/${spec.name} over real HTTP on the real app (in-memory SQLite): owner scoping, admin, validation,
// pagination bounds, and the 404 that tells nobody whether someone else's record exists.

const full = ${b.full};
const other = ${b.other};
const expectedFull = ${expected(spec, 0, 'http')};
const expectedOther = ${expected(spec, 1, 'http')};

describe('${path}', () => {
  let t: TestApp;
  // Users exist in the store (the guards accept tokens of existing users only): one each, signed in once.
  const people: Record<string, { id: string; authorization: string }> = {};
  const as = (name: string) => people[name].authorization;
  const http = () => request(t.app.callback());
  const create = async (user: string, body: object = full) => (await http().post('${path}').set('Authorization', as(user)).send(body).expect(201)).body.data;

  beforeAll(async () => {
    t = await buildTestApp({ env: { USER_STORE: 'database' }, modules: [${n.module}] });
    for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank']) people[name] = await t.signIn('user');
    people.root = await t.signIn('admin');
  });
  afterAll(() => t.close());

  it('answers 401 without a token on every route', async () => {
    await http().get('${path}').expect(401);
    await http().post('${path}').send(full).expect(401);
    await http().get('${path}/0190a0a0-0000-7000-8000-000000000000').expect(401);
  });

  it('creates (201) and reads back a record owned by the caller', async () => {
    const answer = await http().post('${path}').set('Authorization', as('alice')).send(full).expect(201);
    const created = answer.body.data;
    expect(answer.headers.location).toBe(\`${path}/\${created.id}\`);
    expect(created).toMatchObject({ ...expectedFull, ownerId: people.alice.id, id: expect.any(String), createdAt: expect.any(String) });
    const read = await http().get(\`${path}/\${created.id}\`).set('Authorization', as('alice')).expect(200);
    expect(read.body).toEqual({ status: 'success', data: created });
  });

  it("keeps records to their owner: another user gets 404, an admin sees and changes it", async () => {
    const created = await create('alice');
    await http().get(\`${path}/\${created.id}\`).set('Authorization', as('bob')).expect(404);
    await http().patch(\`${path}/\${created.id}\`).set('Authorization', as('bob')).send(other).expect(404);
    await http().delete(\`${path}/\${created.id}\`).set('Authorization', as('bob')).expect(404);
    await http().get(\`${path}/\${created.id}\`).set('Authorization', as('root')).expect(200);
    const changed = await http().patch(\`${path}/\${created.id}\`).set('Authorization', as('root')).send(other).expect(200);
    expect(changed.body.data).toMatchObject({ ...expectedOther, ownerId: people.alice.id });
  });

  it('lists only the caller\\'s records, newest first, paged by limit and offset', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await create('carol')).id);
    await create('dave');
    const page = await http().get('${path}?limit=2&offset=1').set('Authorization', as('carol')).expect(200);
    expect(page.body.data).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.body.data.items.map((item: { id: string }) => item.id)).toEqual([ids[1], ids[0]]);
    const all = await http().get('${path}').set('Authorization', as('root')).expect(200);
    expect(all.body.data.total).toBeGreaterThanOrEqual(4);
  });

  it('refuses a bad or unknown query parameter with 422 naming it', async () => {
    for (const [query, field] of [['limit=abc', 'query.limit'], ['limit=0', 'query.limit'], ['limit=101', 'query.limit'], ['offset=-1', 'query.offset'], ['limit=1.5', 'query.limit'], ['sort=id', 'query.sort']]) {
      const res = await http().get(\`${path}?\${query}\`).set('Authorization', as('carol')).expect(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
    }
  });

  it('PATCH changes a field and refreshes updatedAt; an empty PATCH is 422', async () => {
    const created = await create('erin');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = await http().patch(\`${path}/\${created.id}\`).set('Authorization', as('erin')).send(other).expect(200);
    expect(patched.body.data).toMatchObject(expectedOther);
    expect(Date.parse(patched.body.data.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    await http().patch(\`${path}/\${created.id}\`).set('Authorization', as('erin')).send({}).expect(422);
  });

  it('DELETE answers 204, then 404', async () => {
    const created = await create('frank');
    await http().delete(\`${path}/\${created.id}\`).set('Authorization', as('frank')).expect(204);
    await http().get(\`${path}/\${created.id}\`).set('Authorization', as('frank')).expect(404);
    await http().delete(\`${path}/\${created.id}\`).set('Authorization', as('frank')).expect(404);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of ['0190a0a0-0000-7000-8000-000000000000', 'not-an-id', '1', 'x'.repeat(300)]) {
      const res = await http().get(\`${path}/\${id}\`).set('Authorization', as('alice')).expect(404);
      expect(res.body.status).toBe('fail');
    }
  });

  it('is described in the API document', async () => {
    const document = await http().get('/openapi.json').expect(200);
    expect(Object.keys(document.body.paths)).toEqual(expect.arrayContaining(['${path}', '${path}/{id}']));
    expect(Object.keys(document.body.paths['${path}/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
  });

  it('validates the body: a missing required field, a wrong type, an unknown field', async () => {
    const { ${firstRequired.name}: _omitted, ...withoutRequired } = full;
    const missing = await http().post('${path}').set('Authorization', as('alice')).send(withoutRequired).expect(422);
    expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: '${firstRequired.name}' })]));
    const wrong = await http().post('${path}').set('Authorization', as('alice')).send({ ...full, ${firstRequired.name}: ${spelling(firstRequired).wrong} }).expect(422);
    expect(wrong.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: '${firstRequired.name}' })]));
    await http().post('${path}').set('Authorization', as('alice')).send({ ...full, unknownField: 1 }).expect(422);
  });
});
`;
}
