import type { Fields } from '../../src/stores/kit/fields';
import request from 'supertest';
import type { AnyResource } from '../../src/stores/kit/resource';
import type { ModuleFactory } from '../../src/services';
import { DEFAULT_LIST_SETTINGS } from '../../src/stores/kit/pagination';
import { allowedInWords, hasRules, ruleKeywords, rulesOf } from '../../src/stores/kit/field-rules';
import { outsideValues } from './rule-samples';
import { isCatalogue, writerRoles } from '../../src/stores/kit/access-policy';
import { describeActionCases } from './resource-action-contract';
import { describeCheckRouteCases } from './resource-check-contract';
import { keepingChecks } from './check-samples';
import { describePolicyCases } from './resource-policy-contract';
import { describeIncludeCases, relatedModules } from './resource-include-contract';
import {
  asJson,
  bodyless,
  changesFor,
  defaultedFields,
  ownerOf,
  sampleOf,
  valuesFor,
  wrongValue,
  type Values,
} from './resource-samples';
import { buildTestApp, type TestApp } from './test-app';

// The routes contract of any resource over real HTTP on the real app (in-memory SQLite): owner scoping,
// admin, validation, pages and cursors, filters and sorting, unique keys (409) and references (422), and
// the 404 that tells nobody whether someone else's record exists. What a generated module's test calls.

export function describeResourceRoutes(resource: AnyResource, module: ModuleFactory): void {
  const path = `/api/${resource.name}`;

  describe(path, () => {
    let t: TestApp;
    const people: Record<string, { id: string; authorization: string }> = {};
    const as = (name: string) => people[name]!.authorization;
    const http = () => request(t.app.callback());
    const body = async (name: string, required = false): Promise<Values> =>
      asJson(await valuesFor(t.services.database, resource, people[name]!.id, required));
    const create = async (name: string, overrides: Values = {}) =>
      (
        await http()
          .post(path)
          .set('Authorization', as(name))
          .send(keepingChecks(resource, { ...(await body(name)), ...overrides }, new Set(Object.keys(overrides))))
          .expect(201)
      ).body.data;

    // Who the suite's people are: each a user of their own records, or, on a catalogue, its writers (eve never
    // writes); root is an admin. A catalogue written by a role needs the role among ROLES.
    const catalogue = isCatalogue(resource.access);
    const writerRole = writerRoles(resource.access)?.[0] ?? 'user';
    beforeAll(async () => {
      const roles: Record<string, string> =
        writerRole === 'user' || writerRole === 'admin' ? {} : { ROLES: `user,admin,${writerRole}` };
      t = await buildTestApp({
        env: { USER_STORE: 'database', ...roles },
        modules: [module, ...relatedModules(resource)],
      });
      for (const name of ['alice', 'bob', 'carol', 'dave']) people[name] = await t.signIn(writerRole);
      people.eve = await t.signIn('user');
      people.root = await t.signIn('admin');
    });
    afterAll(() => t.close());
    const ownsOwn = resource.access.read === 'owner';
    /** For a list of one person's records where every reader sees everyone's: narrowed to theirs. */
    const theirs = (name: string) => (ownsOwn ? '' : `&ownerId=${people[name]!.id}`);

    it(`answers 401 without a token on every ${resource.access.read === 'public' ? 'write' : 'route'}`, async () => {
      if (resource.access.read !== 'public') await http().get(path).expect(401);
      await http().post(path).send({}).expect(401);
      if (resource.access.read !== 'public')
        await http().get(`${path}/0190a0a0-0000-7000-8000-000000000000`).expect(401);
    });

    it('creates (201, Location) and reads back a record owned by the caller', async () => {
      const sent = await body('alice');
      const answer = await http().post(path).set('Authorization', as('alice')).send(sent).expect(201);
      const created = answer.body.data;
      expect(answer.headers.location).toBe(`${path}/${created.id}`);
      expect(created).toMatchObject({
        ...sent,
        ownerId: ownerOf(resource, people.alice!.id),
        id: expect.any(String),
        createdAt: expect.any(String),
      });
      expect((await http().get(`${path}/${created.id}`).set('Authorization', as('alice')).expect(200)).body).toEqual({
        status: 'success',
        data: created,
      });
    });

    if (!ownsOwn)
      describePolicyCases(resource, path, {
        http,
        as,
        create,
        idOf: (name) => people[name]!.id,
        database: () => t.services.database,
      });

    (ownsOwn ? it : it.skip)(
      'keeps records to their owner: another user gets 404, an admin sees and changes it',
      async () => {
        const created = await create('alice');
        const changes = asJson(await changesFor(t.services.database, resource, people.alice!.id));
        await http().get(`${path}/${created.id}`).set('Authorization', as('bob')).expect(404);
        await http().patch(`${path}/${created.id}`).set('Authorization', as('bob')).send(changes).expect(404);
        await http().delete(`${path}/${created.id}`).set('Authorization', as('bob')).expect(404);
        const changed = await http()
          .patch(`${path}/${created.id}`)
          .set('Authorization', as('root'))
          .send(changes)
          .expect(200);
        expect(changed.body.data).toMatchObject({ ...changes, ownerId: people.alice!.id });
      },
    );

    // A catalogue's list holds every test's records: the store contract pages through it instead.
    (catalogue ? it.skip : it)(
      "lists the caller's records newest first, by offset and by cursor, counting only when asked",
      async () => {
        const ids: string[] = [];
        for (let i = 0; i < 3; i += 1) ids.push((await create('carol')).id);
        const page = await http()
          .get(`${path}?limit=2&offset=1${theirs('carol')}`)
          .set('Authorization', as('carol'))
          .expect(200);
        expect(page.body.data).toMatchObject({ limit: 2, offset: 1, nextCursor: null });
        expect(page.body.data).not.toHaveProperty('total');
        expect(page.body.data.items.map((item: { id: string }) => item.id)).toEqual([ids[1], ids[0]]);
        const counted = await http()
          .get(`${path}?limit=2&count=true${theirs('carol')}`)
          .set('Authorization', as('carol'))
          .expect(200);
        expect(counted.body.data).toMatchObject({ total: 3, totalCapped: false });
        const first = await http()
          .get(`${path}?limit=2${theirs('carol')}`)
          .set('Authorization', as('carol'))
          .expect(200);
        const next = await http()
          .get(`${path}?limit=2&cursor=${first.body.data.nextCursor}${theirs('carol')}`)
          .set('Authorization', as('carol'))
          .expect(200);
        expect(next.body.data.items.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
        // One or the other: an offset on top of a cursor would skip records.
        const both = await http()
          .get(`${path}?limit=2&offset=1&cursor=${first.body.data.nextCursor}${theirs('carol')}`)
          .set('Authorization', as('carol'))
          .expect(422);
        expect(both.body.errors).toEqual([expect.objectContaining({ field: 'query.offset' })]);
        // A deep offset points to the cursor instead of reading and skipping the rows before it.
        const deep = await http()
          .get(`${path}?offset=${DEFAULT_LIST_SETTINGS.maxOffset + 1}`)
          .set('Authorization', as('carol'))
          .expect(422);
        expect(deep.body.errors).toEqual([
          expect.objectContaining({ field: 'query.offset', message: expect.stringContaining('cursor') }),
        ]);
        await http()
          .get(`${path}?offset=${DEFAULT_LIST_SETTINGS.maxOffset}`)
          .set('Authorization', as('carol'))
          .expect(200);
        // A forged cursor carrying U+0000 in a value is refused like any other NUL, never a 500.
        const decoded = JSON.parse(Buffer.from(first.body.data.nextCursor, 'base64url').toString('utf8')) as {
          o: string;
          v: unknown[];
        };
        const forged = Buffer.from(
          JSON.stringify({
            ...decoded,
            v: decoded.v.map((value, index) => (index === decoded.v.length - 1 ? 'x\u0000y' : value)),
          }),
        ).toString('base64url');
        const nul = await http()
          .get(`${path}?limit=2&cursor=${forged}${theirs('carol')}`)
          .set('Authorization', as('carol'))
          .expect(422);
        expect(nul.body.errors).toEqual([
          expect.objectContaining({
            field: expect.stringMatching(/^query\.cursor/),
            message: expect.stringContaining('U+0000'),
          }),
        ]);
        // The cursor is bound to its sort: taken newest first, it is refused for another order.
        await http()
          .get(`${path}?limit=2&sort=createdAt&cursor=${first.body.data.nextCursor}${theirs('carol')}`)
          .set('Authorization', as('carol'))
          .expect(422);
      },
    );

    it('filters by each declared filter and sorts by each declared key', async () => {
      const made = [await create('dave'), await create('dave')];
      for (const name of resource.filters) {
        const value = made[1][name];
        const res = await http()
          .get(path)
          .query({ [name]: String(value) })
          .set('Authorization', as('dave'))
          .expect(200);
        expect(res.body.data.items.map((item: { id: string }) => item.id)).toContain(made[1].id);
      }
      for (const name of resource.sort)
        for (const sort of [name, `-${name}`])
          await http().get(`${path}?sort=${sort}`).set('Authorization', as('dave')).expect(200);
    });

    it('refuses a bad or unknown query parameter with 422 naming it', async () => {
      const bad = [
        ['limit=abc', 'query.limit'],
        ['limit=0', 'query.limit'],
        ['limit=101', 'query.limit'],
        ['offset=-1', 'query.offset'],
        ['unknown=1', 'query.unknown'],
        ['cursor=bm90LWEtY3Vyc29y', 'query.cursor'],
      ];
      // One key a list: each order offered has its index (a second key, or id, is not offered).
      bad.push(
        ['sort=-nothing', 'query.sort'],
        ['sort=id', 'query.sort'],
        ['sort=createdAt,-createdAt', 'query.sort'],
        ['count=maybe', 'query.count'],
      );
      for (const [query, field] of bad) {
        const res = await http().get(`${path}?${query}`).set('Authorization', as('carol')).expect(422);
        expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
      }
    });

    it('validates the body: a missing required field, a wrong type, an unknown field, an empty PATCH', async () => {
      const full = await body('alice');
      for (const [name, definition] of Object.entries(resource.fields as Fields)) {
        if (!definition.omittable) {
          const { [name]: _omitted, ...without } = full;
          const missing = await http().post(path).set('Authorization', as('alice')).send(without).expect(422);
          expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: name })]));
        }
        const wrong = await http()
          .post(path)
          .set('Authorization', as('alice'))
          .send({ ...full, [name]: wrongValue(definition) })
          .expect(422);
        expect(wrong.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: name })]));
      }
      await http()
        .post(path)
        .set('Authorization', as('alice'))
        .send({ ...full, unknownField: 1 })
        .expect(422);
      const created = await create('alice');
      await http().patch(`${path}/${created.id}`).set('Authorization', as('alice')).send({}).expect(422);
    });

    it('DELETE answers 204, then 404; unknown and malformed ids are 404', async () => {
      const created = await create('bob');
      await http().delete(`${path}/${created.id}`).set('Authorization', as('bob')).expect(204);
      await http().get(`${path}/${created.id}`).set('Authorization', as('bob')).expect(404);
      for (const id of ['0190a0a0-0000-7000-8000-000000000000', 'not-an-id', 'x'.repeat(300)])
        await http().get(`${path}/${id}`).set('Authorization', as('bob')).expect(404);
    });

    for (const key of resource.unique) {
      it(`answers 409 naming ${key.join(' and ')} when they repeat for one owner`, async () => {
        const first = await create('bob');
        const res = await http()
          .post(path)
          .set('Authorization', as('bob'))
          .send({ ...(await body('bob')), ...Object.fromEntries(key.map((name) => [name, first[name]])) })
          .expect(409);
        expect(res.body).toEqual({ status: 'fail', message: `A record with this ${key.join(' and ')} exists already` });
      });
    }

    // A reference to a record only its owner reads; a catalogue points at none (it owns nothing of a user's).
    const private_ = ([, definition]: [string, Fields[string]]) =>
      definition.kind === 'reference' &&
      !catalogue &&
      (definition.references!.resource() as AnyResource).access.read === 'owner';
    for (const [name] of Object.entries(resource.fields as Fields).filter(private_)) {
      it(`answers 422 on ${name} when it names another user's record`, async () => {
        const foreign = await body('alice');
        const res = await http()
          .post(path)
          .set('Authorization', as('bob'))
          .send({ ...(await body('bob')), [name]: foreign[name] })
          .expect(422);
        expect(res.body.errors).toEqual([{ field: name, message: 'No such record, or not yours' }]);
      });
    }

    describeIncludeCases(resource, path, {
      http,
      as,
      create,
      database: () => t.services.database,
      ownerId: (name) => people[name]!.id,
    });

    (defaultedFields(resource).length > 0 ? it : it.skip)(
      'fills left-out defaulted fields, and says so in the document',
      async () => {
        const created = (
          await http()
            .post(path)
            .set('Authorization', as('alice'))
            .send(await body('alice', true))
            .expect(201)
        ).body.data;
        for (const [name, value] of defaultedFields(resource))
          expect({ name, value: created[name] }).toEqual({ name, value: asJson({ value }).value });
        const document = await http().get('/openapi.json').expect(200);
        const schema = document.body.paths[path].post.requestBody.content['application/json'].schema;
        const properties =
          schema.properties ?? document.body.components.schemas[schema.$ref.split('/').pop()].properties;
        // A field the actions set is no body's: its default shows in the record only.
        for (const [name, value] of defaultedFields(resource).filter(([field]) => !bodyless(resource).has(field)))
          expect(properties[name].default).toEqual(asJson({ value }).value);
      },
    );

    for (const [name] of Object.entries(resource.fields as Fields).filter(([field]) => bodyless(resource).has(field))) {
      it(`refuses read-only ${name} in POST and PATCH bodies (422 naming it)`, async () => {
        const value = asJson({ value: sampleOf(resource, name) }).value;
        const posted = await http()
          .post(path)
          .set('Authorization', as('alice'))
          .send({ ...(await body('alice')), [name]: value })
          .expect(422);
        expect(posted.body.errors).toEqual([expect.objectContaining({ field: name })]);
        const created = await create('alice');
        const patched = await http()
          .patch(`${path}/${created.id}`)
          .set('Authorization', as('alice'))
          .send({ [name]: value })
          .expect(422);
        expect(patched.body.errors).toEqual([expect.objectContaining({ field: name })]);
      });
    }

    describeActionCases(resource, path, { http, as, create });
    describeCheckRouteCases(resource, path, { http, as, create, body });

    (ownsOwn ? it : it.skip)(
      "lists one user's records for an admin with ?ownerId=, and refuses it to anyone else (422)",
      async () => {
        const mine = await create('carol');
        const listed = await http()
          .get(path)
          .query({ ownerId: people.carol!.id, limit: 100 })
          .set('Authorization', as('root'))
          .expect(200);
        expect(listed.body.data.items.map((item: { id: string }) => item.id)).toContain(mine.id);
        expect(listed.body.data.items.every((item: { ownerId: string }) => item.ownerId === people.carol!.id)).toBe(
          true,
        );
        const refused = await http()
          .get(path)
          .query({ ownerId: people.carol!.id })
          .set('Authorization', as('carol'))
          .expect(422);
        expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'query.ownerId' })]);
      },
    );

    // A field the body may not name (read-only, or set by an action) is refused as such, whatever its rules say.
    const writable = ([name, field]: [string, Fields[string]]) => hasRules(field) && !bodyless(resource).has(name);
    for (const [name, definition] of Object.entries(resource.fields as Fields).filter(writable)) {
      it(`refuses ${name} just outside its rules in POST and PATCH (422: ${allowedInWords(rulesOf(definition))}), and states them in the document`, async () => {
        const created = await create('alice');
        for (const { rule, value } of outsideValues(definition)) {
          const posted = await http()
            .post(path)
            .set('Authorization', as('alice'))
            .send({ ...(await body('alice')), [name]: value })
            .expect(422);
          expect({ rule, errors: posted.body.errors }).toEqual({
            rule,
            errors: [expect.objectContaining({ field: name })],
          });
          if (rule === 'enum')
            expect(posted.body.errors[0].message).toBe(`must be one of: ${rulesOf(definition).enum!.join(', ')}`);
          const patched = await http()
            .patch(`${path}/${created.id}`)
            .set('Authorization', as('alice'))
            .send({ [name]: value })
            .expect(422);
          expect({ rule, errors: patched.body.errors }).toEqual({
            rule,
            errors: [expect.objectContaining({ field: name })],
          });
        }
        expect(
          (await http().get(`${path}/${created.id}`).set('Authorization', as('alice')).expect(200)).body.data,
        ).toEqual(created);
        const document = await http().get('/openapi.json').expect(200);
        const schema = document.body.paths[path].post.requestBody.content['application/json'].schema;
        const property = (schema.properties ??
          document.body.components.schemas[schema.$ref.split('/').pop()].properties)[name];
        const stated = JSON.stringify(property);
        for (const [keyword, value] of Object.entries(ruleKeywords(rulesOf(definition))))
          expect(stated).toContain(`"${keyword}":${JSON.stringify(value)}`);
      });
    }

    for (const name of resource.filters.filter((filtered) => resource.fields[filtered]?.enum)) {
      it(`refuses ?${name}= outside its allowed values with 422 naming them`, async () => {
        const allowed = rulesOf(resource.fields[name]!).enum!;
        const refused = await http()
          .get(path)
          .query({ [name]: `not-${allowed.join('-')}` })
          .set('Authorization', as('dave'))
          .expect(422);
        expect(refused.body.errors).toEqual([
          { field: `query.${name}`, message: `must be one of: ${allowed.join(', ')}` },
        ]);
        const listed = await http()
          .get(path)
          .query({ [`${name}[in]`]: `${allowed[0]},bogus` })
          .set('Authorization', as('dave'))
          .expect(422);
        expect(listed.body.errors).toEqual([
          { field: `query.${name}[in]`, message: `each value must be one of: ${allowed.join(', ')}` },
        ]);
        await http()
          .get(path)
          .query({ [`${name}[in]`]: allowed.join(',') })
          .set('Authorization', as('dave'))
          .expect(200);
      });
    }

    const searchable = resource.search.filter((name: string) => !hasRules(resource.fields[name]!));
    if (searchable.length > 0) {
      it(`finds ?q= in ${searchable.join(', ')} ignoring case and accents, % literal`, async () => {
        const name = searchable[0] as string;
        const [school, percent, plain] = [
          await create('dave', { [name]: 'École' }),
          await create('dave', { [name]: 'zq100% x' }),
          await create('dave', { [name]: 'zq1000 x' }),
        ];
        const found = async (q: string) =>
          (
            await http().get(path).query({ q, limit: 100 }).set('Authorization', as('dave')).expect(200)
          ).body.data.items.map((item: { id: string }) => item.id);
        expect(await found('ECOLE')).toContain(school.id);
        expect(await found('zq100%')).toEqual([percent.id]);
        expect(await found('zq1000')).toEqual([plain.id]);
        await http().get(`${path}?q=`).set('Authorization', as('dave')).expect(422);
        // A search pages with its cursor: an offset would end a bounded walk before the rows it skips.
        const offset = await http()
          .get(path)
          .query({ q: 'zq', offset: 1 })
          .set('Authorization', as('dave'))
          .expect(422);
        expect(offset.body.errors).toEqual([
          {
            field: 'query.offset',
            message: "cannot be used with q: a search pages with cursor (each page's nextCursor)",
          },
        ]);
        await http().get(path).query({ q: 'zq', offset: 0 }).set('Authorization', as('dave')).expect(200);
      });
    }

    it('is described in the API document', async () => {
      const document = await http().get('/openapi.json').expect(200);
      const actions = Object.keys(resource.actions).map((action) => `${path}/{id}/${action}`);
      expect(Object.keys(document.body.paths)).toEqual(expect.arrayContaining([path, `${path}/{id}`, ...actions]));
      const parameters = document.body.paths[path].get.parameters.map((parameter: { name: string }) => parameter.name);
      const owners = catalogue ? [] : ['ownerId']; // a catalogue's records are nobody's: no owner to narrow to
      expect(parameters).toEqual(
        expect.arrayContaining([
          'limit',
          'offset',
          'cursor',
          ...owners,
          ...(resource.search.length > 0 ? ['q'] : []),
          ...resource.filters,
        ]),
      );
      const record = document.body.paths[`${path}/{id}`].get.responses['200'].content['application/json'].schema;
      if (bodyless(resource).size > 0) expect(JSON.stringify(record)).toContain('"readOnly":true');
    });
  });
}
