import request from 'supertest';
import { resourceModule } from '../../src/modules/kit';
import { DocumentConformance } from '../support/openapi-conformance';
import { notes } from '../support/resource-fixtures';
import { buildTestApp, type TestApp } from '../support/test-app';

// `?q=` where no index serves the term, over HTTP (SQLite in memory: every term is walked there), with
// LIST_SEARCH_SCAN_LIMIT at its lowest: pages that stop early with `scanCapped` and a cursor, each answer as
// the document describes it, and the same records as one page with room for all.

describe('GET /api/kit-notes?q= walked within LIST_SEARCH_SCAN_LIMIT', () => {
  let t: TestApp;
  let authorization: string;
  const path = '/api/kit-notes';
  const http = () => request(t.app.callback());

  beforeAll(async () => {
    t = await buildTestApp({
      env: { USER_STORE: 'database', LIST_SEARCH_SCAN_LIMIT: '10' },
      modules: [resourceModule(notes)],
    });
    authorization = (await t.signIn()).authorization;
  });
  afterAll(async () => {
    await t.close();
  });

  const create = async (title: string) =>
    (await http().post(path).set('Authorization', authorization).send({ title }).expect(201)).body.data as {
      id: string;
    };

  it('answers pages that stop after 10 records examined, with scanCapped and a cursor, until every match is found', async () => {
    const oldest = await create('Zèbre 0');
    for (let index = 1; index <= 14; index += 1) await create(index === 7 ? `ZEBRE ${index}` : `plain ${index}`);
    const conformance = new DocumentConformance((await http().get('/openapi.json').expect(200)).body);
    const pages: { items: { id: string; title: string }[]; nextCursor: string | null; scanCapped?: boolean }[] = [];
    let cursor: string | undefined;
    do {
      const answer = await http()
        .get(path)
        .query({ q: 'zebre', limit: 5, ...(cursor ? { cursor } : {}) })
        .set('Authorization', authorization)
        .expect(200);
      conformance.expectConforms('GET', path, answer);
      pages.push(answer.body.data);
      cursor = answer.body.data.nextCursor ?? undefined;
    } while (cursor && pages.length < 10);
    // Newest first: the 10 newest hold `ZEBRE 7`; the 5 left hold the oldest.
    expect(
      pages.map((page) => ({
        titles: page.items.map((item) => item.title),
        scanCapped: page.scanCapped ?? false,
        more: page.nextCursor !== null,
      })),
    ).toEqual([
      { titles: ['ZEBRE 7'], scanCapped: true, more: true },
      { titles: ['Zèbre 0'], scanCapped: false, more: false },
    ]);
    const whole = await http()
      .get(path)
      .query({ q: 'zebre', limit: 5, count: true })
      .set('Authorization', authorization)
      .expect(200);
    expect({ total: whole.body.data.total, totalCapped: whole.body.data.totalCapped }).toEqual({
      total: 1,
      totalCapped: true,
    });
    expect(pages[1]!.items[0]!.id).toBe(oldest.id);
  });
});
