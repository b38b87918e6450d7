import request from 'supertest';
import { resourceModule } from '../../src/modules/kit';
import { usersModule } from '../../src/modules/users';
import { bookingsModule, notices, rooms } from '../support/booking-fixtures';
import { testEngines, type StartedEngine } from '../support/engines';
import { buildTestApp, type TestApp } from '../support/test-app';

// The access policies as a booking service uses them, over HTTP on each engine: admins add rooms (a catalogue),
// a plain user cannot; every user lists them and books one, reading it back with its room; bookings stay their
// owner's; a room's name is unique across the catalogue; notices are read without a token and written by editors.
// And its rules: a booking ends after it starts (declared: 422 on POST and on a one-sided PATCH, racing PATCHes
// never store a backwards one) and holds no more attendees than its room (the module's own check).

for (const target of testEngines()) {
  (target.skipReason ? describe.skip : describe)(
    `a catalogue and the records pointing at it, on ${target.label}`,
    () => {
      let started: StartedEngine | undefined;
      let t: TestApp | undefined;
      const http = () => request(t!.app.callback());
      const people: Record<string, { id: string; authorization: string }> = {};
      beforeAll(async () => {
        started = await target.start();
        t = await buildTestApp({
          env: { DATABASE_URL: started.url, USER_STORE: 'database', ROLES: 'user,admin,editor' },
          modules: [usersModule, resourceModule(rooms), bookingsModule, resourceModule(notices)],
        });
        for (const [name, role] of [
          ['admin', 'admin'],
          ['ada', 'user'],
          ['bo', 'user'],
          ['ed', 'editor'],
        ] as const)
          people[name] = await t.signIn(role);
      }, 120_000);
      afterAll(async () => {
        await t?.close();
        await started?.stop();
      }, 60_000);
      const as = (name: string) => people[name]!.authorization;
      const at = (hour: number) => new Date(Date.UTC(2030, 0, 1, hour)).toISOString();
      /** A booking of the room from `hour` to the next, for two. */
      const slot = (room: string, hour: number) => ({ room, startsAt: at(hour), endsAt: at(hour + 1), attendees: 2 });
      const newRoom = async (capacity: number) =>
        (
          await http()
            .post('/api/bk-rooms')
            .set('Authorization', as('admin'))
            .send({ name: `Room ${Math.random()}`, capacity })
            .expect(201)
        ).body.data;

      it('admins add rooms, users cannot; every user lists them and books one, reading it with its room; bookings stay their owner’s', async () => {
        const name = `Atlas ${Date.now()}`;
        await http().post('/api/bk-rooms').set('Authorization', as('ada')).send({ name, capacity: 437 }).expect(403);
        const room = (
          await http().post('/api/bk-rooms').set('Authorization', as('admin')).send({ name, capacity: 437 }).expect(201)
        ).body.data;
        expect(room.ownerId).toBe('catalogue');
        const again = await http()
          .post('/api/bk-rooms')
          .set('Authorization', as('admin'))
          .send({ name, capacity: 4 })
          .expect(409); // across the catalogue
        expect(again.body.message).toBe('A record with this name exists already');
        for (const who of ['ada', 'bo']) {
          // An odd capacity: the page holds this room among the few others the database may hold (the contract suites' too).
          const listed = await http()
            .get('/api/bk-rooms')
            .query({ sort: '-name', limit: 100, 'capacity[gte]': 437, 'capacity[lte]': 437 })
            .set('Authorization', as(who))
            .expect(200);
          expect(listed.body.data.items.map((item: { id: string }) => item.id)).toContain(room.id);
        }
        await http().patch(`/api/bk-rooms/${room.id}`).set('Authorization', as('bo')).send({ capacity: 9 }).expect(403);
        await http().get('/api/bk-rooms').expect(401); // read by signed-in users only

        const booking = (
          await http().post('/api/bk-bookings').set('Authorization', as('ada')).send(slot(room.id, 9)).expect(201)
        ).body.data;
        const read = await http()
          .get(`/api/bk-bookings/${booking.id}?include=room`)
          .set('Authorization', as('ada'))
          .expect(200);
        expect(read.body.data.included.room).toEqual(room);
        const page = await http().get('/api/bk-bookings?include=room').set('Authorization', as('ada')).expect(200);
        expect(page.body.data.items.find((item: { id: string }) => item.id === booking.id).included.room).toEqual(room);
        await http().get(`/api/bk-bookings/${booking.id}`).set('Authorization', as('bo')).expect(404);
        await http().post(`/api/bk-bookings/${booking.id}/confirm`).set('Authorization', as('bo')).expect(404);
        await http().post('/api/bk-bookings').set('Authorization', as('bo')).send(slot(room.id, 10)).expect(201);
        expect(
          (await http().get('/api/bk-bookings').set('Authorization', as('bo')).expect(200)).body.data.items.map(
            (item: { id: string }) => item.id,
          ),
        ).not.toContain(booking.id);
        const missing = await http()
          .post('/api/bk-bookings')
          .set('Authorization', as('ada'))
          .send(slot('0190a0a0-0000-7000-8000-000000000000', 11))
          .expect(422);
        expect(missing.body.errors).toEqual([{ field: 'room', message: 'No such record, or not yours' }]);
        await http().delete(`/api/bk-rooms/${room.id}`).set('Authorization', as('admin')).expect(409); // bookings point at it
      });

      it('notices: anyone reads them without a token, editors and admins write them, nobody else', async () => {
        await http().post('/api/bk-notices').send({ text: 'Closed on Friday' }).expect(401);
        await http()
          .post('/api/bk-notices')
          .set('Authorization', as('ada'))
          .send({ text: 'Closed on Friday' })
          .expect(403);
        const notice = (
          await http()
            .post('/api/bk-notices')
            .set('Authorization', as('ed'))
            .send({ text: 'Closed on Friday' })
            .expect(201)
        ).body.data;
        expect((await http().get(`/api/bk-notices/${notice.id}`).expect(200)).body.data).toEqual(notice);
        expect(
          (await http().get('/api/bk-notices').expect(200)).body.data.items.map((item: { id: string }) => item.id),
        ).toContain(notice.id);
        await http()
          .patch(`/api/bk-notices/${notice.id}`)
          .set('Authorization', as('admin'))
          .send({ text: 'Open on Friday' })
          .expect(200);
        const document = (await http().get('/openapi.json').expect(200)).body;
        expect(document.paths['/api/bk-notices'].get.security).toEqual([]); // no token asked
        expect(document.paths['/api/bk-notices'].post.responses['403']).toBeDefined();
        expect(
          document.paths['/api/bk-rooms'].post.requestBody.content['application/json'].schema.properties?.ownerId,
        ).toBeUndefined();
      });

      it('refuses a backwards or empty booking on POST and on a one-sided PATCH, states the rule, and racing PATCHes never store one', async () => {
        const room = await newRoom(8);
        for (const endsAt of [at(9), at(8)]) {
          const refused = await http()
            .post('/api/bk-bookings')
            .set('Authorization', as('ada'))
            .send({ ...slot(room.id, 9), endsAt })
            .expect(422);
          expect(refused.body.errors).toEqual([{ field: 'endsAt', message: 'must be after startsAt' }]);
        }
        const booking = (
          await http().post('/api/bk-bookings').set('Authorization', as('ada')).send(slot(room.id, 9)).expect(201)
        ).body.data;
        const late = await http()
          .patch(`/api/bk-bookings/${booking.id}`)
          .set('Authorization', as('ada'))
          .send({ startsAt: at(10) })
          .expect(422);
        expect(late.body.errors).toEqual([{ field: 'startsAt', message: 'must be before endsAt' }]);
        await http()
          .patch(`/api/bk-bookings/${booking.id}`)
          .set('Authorization', as('ada'))
          .send({ endsAt: at(9) })
          .expect(422);
        const document = (await http().get('/openapi.json').expect(200)).body;
        expect(document.paths['/api/bk-bookings'].post.description).toContain('endsAt > startsAt');
        expect(document.paths['/api/bk-bookings/{id}'].patch.description).toContain('endsAt > startsAt');
        // Each PATCH alone keeps the booking forwards (9–11 → 10–11, or 9–10); both together would make it 10–10.
        for (let round = 0; round < 5; round += 1) {
          const racing = (
            await http()
              .post('/api/bk-bookings')
              .set('Authorization', as('ada'))
              .send({ ...slot(room.id, 9), endsAt: at(11) })
              .expect(201)
          ).body.data;
          const answers = await Promise.all([
            http()
              .patch(`/api/bk-bookings/${racing.id}`)
              .set('Authorization', as('ada'))
              .send({ startsAt: at(10) }),
            http()
              .patch(`/api/bk-bookings/${racing.id}`)
              .set('Authorization', as('ada'))
              .send({ endsAt: at(10) }),
          ]);
          expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422]);
          const stored = (await http().get(`/api/bk-bookings/${racing.id}`).set('Authorization', as('ada')).expect(200))
            .body.data;
          expect(Date.parse(stored.endsAt)).toBeGreaterThan(Date.parse(stored.startsAt));
        }
      });

      it("refuses more attendees than the room holds (the module's check), on POST, PATCH and an action, and lets the rest through", async () => {
        const [small, large] = [await newRoom(3), await newRoom(30)];
        const refused = await http()
          .post('/api/bk-bookings')
          .set('Authorization', as('ada'))
          .send({ ...slot(small.id, 9), attendees: 4 })
          .expect(422);
        expect(refused.body.errors).toEqual([
          { field: 'attendees', message: "must be at most the room's capacity, 3" },
        ]);
        const booking = (
          await http()
            .post('/api/bk-bookings')
            .set('Authorization', as('ada'))
            .send({ ...slot(large.id, 9), attendees: 12 })
            .expect(201)
        ).body.data;
        await http()
          .patch(`/api/bk-bookings/${booking.id}`)
          .set('Authorization', as('ada'))
          .send({ room: small.id })
          .expect(422);
        await http()
          .patch(`/api/bk-bookings/${booking.id}`)
          .set('Authorization', as('ada'))
          .send({ room: small.id, attendees: 3 })
          .expect(200);
        // The room shrank after the booking was made: the next write to the booking, an action too, is judged anew.
        await http()
          .patch(`/api/bk-rooms/${small.id}`)
          .set('Authorization', as('admin'))
          .send({ capacity: 2 })
          .expect(200);
        const confirm = await http()
          .post(`/api/bk-bookings/${booking.id}/confirm`)
          .set('Authorization', as('ada'))
          .expect(422);
        expect(confirm.body.errors).toEqual([
          { field: 'attendees', message: "must be at most the room's capacity, 2" },
        ]);
        expect(
          (await http().get(`/api/bk-bookings/${booking.id}`).set('Authorization', as('ada')).expect(200)).body.data
            .status,
        ).toBe('requested');
      });
    },
  );
}
