import type request from 'supertest';
import { isCatalogue } from '../../src/stores/kit/access-policy';
import type { AnyResource } from '../../src/stores/kit/resource';
import { asJson, changesFor, type Values } from './resource-samples';
import type { Database } from '../../src/stores/types';

// Who may read and who may write a resource that is not each user's own (src/stores/kit/access-policy.ts):
// every signed-in user reads (or anyone, without a token), and either each writes their own records or only a
// catalogue's writers do. What the owner cases of resource-http-contract.ts say for the default policy.

export interface PolicyCaseContext {
  http: () => ReturnType<typeof request>;
  as: (who: string) => string;
  /** A record written as `who` would write it (a catalogue's: by a writer). */
  create: (who: string) => Promise<Values>;
  idOf: (who: string) => string;
  database: () => Database;
}

export function describePolicyCases(
  resource: AnyResource,
  path: string,
  { http, as, create, idOf, database }: PolicyCaseContext,
): void {
  const { access } = resource;
  const catalogue = isCatalogue(access);

  it(`reads: ${access.read === 'public' ? 'anyone, without a token' : 'every signed-in user'}, the records of ${catalogue ? 'the catalogue' : 'every user'}`, async () => {
    const record = await create('alice');
    const read = (request: ReturnType<ReturnType<typeof http>['get']>) =>
      access.read === 'public' ? request : request.set('Authorization', as('eve'));
    expect((await read(http().get(`${path}/${String(record.id)}`)).expect(200)).body.data).toEqual(record);
    const listed = await read(
      http()
        .get(path)
        .query({ limit: 100, ...(catalogue ? {} : { ownerId: idOf('alice') }) }),
    ).expect(200);
    expect(listed.body.data.items.map((item: { id: string }) => item.id)).toContain(record.id);
    if (access.read !== 'public') {
      await http().get(path).expect(401);
      await http()
        .get(`${path}/${String(record.id)}`)
        .expect(401);
    }
    if (!catalogue)
      expect(listed.body.data.items.every((item: { ownerId: string }) => item.ownerId === idOf('alice'))).toBe(true); // ?ownerId= narrows, for any reader
  });

  it(`writes: ${catalogue ? `${access.write} only (anyone else 403), the records nobody's` : 'each user their own (another user 404), an admin any'}`, async () => {
    const record = await create('alice');
    const changes = asJson(await changesFor(database(), resource, catalogue ? 'catalogue' : idOf('alice')));
    const id = String(record.id);
    if (catalogue) {
      expect(record.ownerId).toBe('catalogue');
      await http().post(path).set('Authorization', as('eve')).send({}).expect(403);
      await http().patch(`${path}/${id}`).set('Authorization', as('eve')).send(changes).expect(403);
      await http().delete(`${path}/${id}`).set('Authorization', as('eve')).expect(403);
      await http().patch(`${path}/${id}`).set('Authorization', as('bob')).send(changes).expect(200); // any writer, not only the one who made it
    } else {
      await http().patch(`${path}/${id}`).set('Authorization', as('eve')).send(changes).expect(404);
      await http().delete(`${path}/${id}`).set('Authorization', as('eve')).expect(404);
      await http().patch(`${path}/${id}`).set('Authorization', as('root')).send(changes).expect(200);
    }
    expect((await http().get(`${path}/${id}`).set('Authorization', as('eve')).expect(200)).body.data).toMatchObject(
      changes,
    );
  });
}
