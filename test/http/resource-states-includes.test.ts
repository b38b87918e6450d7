import request from 'supertest';
import { resourceModule } from '../../src/modules/kit';
import { MAX_INCLUDED_LINKS } from '../../src/http/routing/resource-include';
import type { Resource } from '../../src/stores/kit/resource';
import { testEngines } from '../support/engines';
import { storeOf } from '../support/resource-samples';
import { buildTestApp, type TestApp } from '../support/test-app';
import { labels, projects, ticketLabels, tickets } from '../support/tracker-fixtures';

// A tracker's tickets over real HTTP on every engine: actions that move a status between states (refused by
// the state with a 409 naming it, one winner among racing callers, one time for closedAt and updatedAt),
// ?include= forward and through a join module on lists and single reads, and an admin creating for a user.

const engines = testEngines();

const modules = [
  resourceModule(projects),
  resourceModule(tickets),
  resourceModule(labels),
  resourceModule(ticketLabels),
];

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`tickets on ${target.label}`, () => {
    let t: TestApp;
    let stop: () => Promise<void>;
    const people: Record<string, { id: string; authorization: string }> = {};
    const as = (name: string) => people[name]!.authorization;
    const http = () => request(t.app.callback());
    const post = (path: string, who: string, body: object) =>
      http().post(`/api/${path}`).set('Authorization', as(who)).send(body);

    beforeAll(async () => {
      const started = await target.start();
      stop = started.stop;
      t = await buildTestApp({ env: { USER_STORE: 'database', DATABASE_URL: started.url }, modules });
      for (const name of ['alice', 'bob']) people[name] = await t.signIn('user');
      people.root = await t.signIn('admin');
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await stop?.();
    });

    describe('states', () => {
      it('keeps the fields actions set out of POST and PATCH bodies (422 naming each)', async () => {
        const posted = await post('tr-tickets', 'alice', { title: 'a', status: 'closed' }).expect(422);
        expect(posted.body.errors).toEqual([expect.objectContaining({ field: 'status' })]);
        const ticket = (await post('tr-tickets', 'alice', { title: 'a' }).expect(201)).body.data;
        expect(ticket).toMatchObject({ status: 'open', closedAt: null });
        const patched = await http()
          .patch(`/api/tr-tickets/${ticket.id}`)
          .set('Authorization', as('alice'))
          .send({ closedAt: new Date().toISOString() })
          .expect(422);
        expect(patched.body.errors).toEqual([expect.objectContaining({ field: 'closedAt' })]);
      });

      it('closes from open or in_progress, reopens from closed, and refuses any other start with a 409 naming the current status', async () => {
        const ticket = (await post('tr-tickets', 'alice', { title: 'b' }).expect(201)).body.data;
        const run = (action: string) =>
          http().post(`/api/tr-tickets/${ticket.id}/${action}`).set('Authorization', as('alice'));
        expect((await run('reopen').expect(409)).body).toEqual({
          status: 'fail',
          message: 'Cannot reopen while status is open',
        });
        expect((await run('start').expect(200)).body.data).toMatchObject({ status: 'in_progress', closedAt: null });
        const closed = (await run('close').expect(200)).body.data;
        expect(closed.status).toBe('closed');
        expect(closed.closedAt).toBe(closed.updatedAt); // one time for the write
        expect(
          (await http().get(`/api/tr-tickets/${ticket.id}`).set('Authorization', as('alice')).expect(200)).body.data,
        ).toEqual(closed);
        expect((await run('close').expect(409)).body).toEqual({
          status: 'fail',
          message: 'Cannot close while status is closed',
        });
        expect((await run('start').expect(409)).body.message).toBe('Cannot start while status is closed');
        expect((await run('reopen').expect(200)).body.data).toMatchObject({ status: 'open', closedAt: null });
        expect((await run('close').expect(200)).body.data.status).toBe('closed');
      });

      it('lets one of several concurrent closes win; the others answer 409', async () => {
        const ticket = (await post('tr-tickets', 'alice', { title: 'race' }).expect(201)).body.data;
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            http()
              .post(`/api/tr-tickets/${ticket.id}/close`)
              .set('Authorization', as(i % 2 === 0 ? 'alice' : 'root')),
          ),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
        const winner = answers.find((answer) => answer.status === 200)!.body.data;
        expect(
          (await http().get(`/api/tr-tickets/${ticket.id}`).set('Authorization', as('alice')).expect(200)).body.data,
        ).toEqual(winner);
        for (const answer of answers.filter((one) => one.status === 409))
          expect(answer.body.message).toBe('Cannot close while status is closed');
      });

      it('documents the states: read-only fields, and the 409 of each action with its starting states', async () => {
        const document = (await http().get('/openapi.json').expect(200)).body;
        const close = document.paths['/api/tr-tickets/{id}/close'].post;
        expect(close.responses['409'].description).toContain('status is open or in_progress');
        const body = document.paths['/api/tr-tickets'].post.requestBody.content['application/json'].schema;
        const properties = body.properties ?? document.components.schemas[body.$ref.split('/').pop()].properties;
        expect(Object.keys(properties)).not.toEqual(expect.arrayContaining(['status']));
        expect(Object.keys(properties)).not.toContain('closedAt');
      });
    });

    describe('includes', () => {
      const labelled = async (who: string, names: string[]) => {
        const project = (await post('tr-projects', who, { name: 'p' }).expect(201)).body.data;
        const ticket = (await post('tr-tickets', who, { title: 't', project: project.id }).expect(201)).body.data;
        const made = [];
        for (const name of names) {
          const label = (await post('tr-labels', who, { name }).expect(201)).body.data;
          await post('tr-ticket-labels', who, { ticket: ticket.id, label: label.id }).expect(201);
          made.push(label);
        }
        return { project, ticket, labels: made };
      };

      it('GET /:id?include=project,labels answers the record with its project and its labels through the join', async () => {
        const { project, ticket, labels: made } = await labelled('bob', ['bug', 'ui']);
        const read = (
          await http()
            .get(`/api/tr-tickets/${ticket.id}?include=project,tr-labels`)
            .set('Authorization', as('bob'))
            .expect(200)
        ).body.data;
        expect(read.included.project).toEqual(project);
        expect(read.included['tr-labels']).toEqual(made);
        expect(
          (await http().get(`/api/tr-tickets/${ticket.id}`).set('Authorization', as('bob')).expect(200)).body.data,
        ).not.toHaveProperty('included');
        const lonely = (await post('tr-tickets', 'bob', { title: 'none' }).expect(201)).body.data;
        expect(
          (
            await http()
              .get(`/api/tr-tickets/${lonely.id}?include=tr-labels,project`)
              .set('Authorization', as('bob'))
              .expect(200)
          ).body.data.included,
        ).toEqual({ 'tr-labels': [], project: null });
      });

      it('GET /?include=tr-labels reads one page of links and one of labels, whatever the page holds', async () => {
        const first = await labelled('alice', ['a1', 'a2']);
        const second = await labelled('alice', ['b1']);
        const spies = [ticketLabels, labels].map((resource) =>
          jest.spyOn(storeOf(t.services.database, resource as Resource), 'list'),
        );
        try {
          const page = (
            await http().get('/api/tr-tickets?include=tr-labels&limit=2').set('Authorization', as('alice')).expect(200)
          ).body.data;
          expect(spies.map((spy) => spy.mock.calls.length)).toEqual([1, 1]);
          expect(
            page.items.map((item: { id: string; included: { 'tr-labels': { name: string }[] } }) => [
              item.id,
              item.included['tr-labels'].map((label) => label.name),
            ]),
          ).toEqual([
            [second.ticket.id, ['b1']],
            [first.ticket.id, ['a1', 'a2']],
          ]);
        } finally {
          for (const spy of spies) spy.mockRestore();
        }
        expect(MAX_INCLUDED_LINKS).toBeGreaterThanOrEqual(100);
      });

      it('refuses an include the resource does not offer, naming those it does, and any undeclared parameter on single reads', async () => {
        const { ticket } = await labelled('alice', []);
        for (const path of ['/api/tr-tickets?include=labels', `/api/tr-tickets/${ticket.id}?include=project,labels`]) {
          const refused = await http().get(path).set('Authorization', as('alice')).expect(422);
          expect(refused.body.errors).toEqual([
            { field: 'query.include', message: "'labels' cannot be included: allowed are project, tr-labels" },
          ]);
        }
        const unknown = await http()
          .get(`/api/tr-tickets/${ticket.id}?colour=red`)
          .set('Authorization', as('alice'))
          .expect(422);
        expect(unknown.body.errors).toEqual([{ field: 'query.colour', message: 'is not allowed' }]);
        await http().get(`/api/tr-labels/${ticket.id}?include=x`).set('Authorization', as('alice')).expect(422);
      });

      it("includes only the caller's records: another user's ticket is a 404, an admin sees the owner's", async () => {
        const { ticket, labels: made } = await labelled('bob', ['mine']);
        await http()
          .get(`/api/tr-tickets/${ticket.id}?include=tr-labels`)
          .set('Authorization', as('alice'))
          .expect(404);
        expect(
          (
            await http()
              .get(`/api/tr-tickets/${ticket.id}?include=tr-labels`)
              .set('Authorization', as('root'))
              .expect(200)
          ).body.data.included['tr-labels'],
        ).toEqual(made);
      });
    });

    describe('an admin creating for a user', () => {
      it("creates the record as the named user's, checking its references against that user's records", async () => {
        const project = (await post('tr-projects', 'alice', { name: 'alice p' }).expect(201)).body.data;
        const ticket = (
          await post('tr-tickets', 'root', {
            title: 'for alice',
            project: project.id,
            ownerId: people.alice!.id,
          }).expect(201)
        ).body.data;
        expect(ticket).toMatchObject({ ownerId: people.alice!.id, project: project.id });
        expect(
          (await http().get(`/api/tr-tickets/${ticket.id}`).set('Authorization', as('alice')).expect(200)).body.data,
        ).toEqual(ticket);
        const foreign = await post('tr-tickets', 'root', {
          title: 'x',
          project: project.id,
          ownerId: people.bob!.id,
        }).expect(422);
        expect(foreign.body.errors).toEqual([{ field: 'project', message: 'No such record, or not yours' }]);
        const nobody = await post('tr-tickets', 'root', {
          title: 'x',
          ownerId: '0190a0a0-0000-7000-8000-000000000000',
        }).expect(422);
        expect(nobody.body.errors).toEqual([{ field: 'ownerId', message: 'No such user' }]);
        const user = await post('tr-tickets', 'bob', { title: 'x', ownerId: people.alice!.id }).expect(422);
        expect(user.body.errors).toEqual([expect.objectContaining({ field: 'ownerId' })]);
      });
    });
  });
}
