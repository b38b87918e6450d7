import { Sequelize } from 'sequelize';
import { analyze, seedNotes } from '../../bench/scale/seed';
import type { ScaleEngine } from '../../bench/scale/settings';
import { createResourceTable } from '../../src/modules/kit';
import { isId } from '../../src/stores/ids';
import { testEngines, type StartedEngine } from '../support/engines';

// `make bench-scale` seeds its tables with one INSERT … SELECT per owner, written three times (one per
// engine's SQL). What the bench measures is only worth something if those rows are rows the service could
// have written: valid, unique, time-ordered UUIDv7 ids whose time is created_at, varied titles, ~10% pinned.

const TABLE = 'bench_seed_notes';
const BIG = 400;
const SMALL = 60;

interface SeededRow {
  id: string;
  owner_id: string;
  title: string;
  body: string | null;
  pinned: boolean | number;
  created_at: Date | string;
  updated_at: Date | string;
}

const millis = (value: Date | string) => new Date(value).getTime();

const engines = testEngines().filter((target) => ['sqlite', 'postgres', 'mysql'].includes(target.engine));

describe.each(engines)('bench-scale seed on $label', (target) => {
  const run = target.skipReason ? describe.skip : describe;
  run('rows as the service writes them', () => {
    let started: StartedEngine | undefined;
    let sequelize: Sequelize;
    let rows: SeededRow[] = [];

    beforeAll(async () => {
      started = await target.start();
      sequelize =
        target.engine === 'sqlite'
          ? new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false })
          : new Sequelize(started.url, { logging: false, timezone: '+00:00' });
      const queryInterface = sequelize.getQueryInterface();
      await queryInterface.dropTable(TABLE);
      await createResourceTable(queryInterface, TABLE, (c) => ({
        ...c.string('title', { search: true }),
        ...c.text('body', { optional: true, search: true }),
        ...c.boolean('pinned'),
      }));
      await seedNotes(sequelize, target.engine as ScaleEngine, TABLE, 'owner-big', BIG, 0);
      await seedNotes(sequelize, target.engine as ScaleEngine, TABLE, 'owner-small', SMALL, 1);
      await analyze(sequelize, target.engine as ScaleEngine, TABLE);
      [rows] = (await sequelize.query(
        `SELECT id, owner_id, title, body, pinned, created_at, updated_at FROM ${TABLE}`,
      )) as [SeededRow[], unknown];
    }, 120_000);

    afterAll(async () => {
      await sequelize?.getQueryInterface().dropTable(TABLE);
      await sequelize?.close();
      await started?.stop();
    });

    it('writes one row per number for each owner, with unique valid ids', () => {
      expect(rows.filter((row) => row.owner_id === 'owner-big')).toHaveLength(BIG);
      expect(rows.filter((row) => row.owner_id === 'owner-small')).toHaveLength(SMALL);
      expect(rows.every((row) => isId(row.id) && row.id === row.id.toLowerCase() && row.id[14] === '7')).toBe(true);
      expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    });

    it('orders ids as created_at (the id carries its millisecond), with updated_at = created_at', () => {
      for (const owner of ['owner-big', 'owner-small']) {
        const mine = rows
          .filter((row) => row.owner_id === owner)
          .sort((a, b) => millis(a.created_at) - millis(b.created_at));
        const byId = [...mine].sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(byId.map((row) => row.id)).toEqual(mine.map((row) => row.id));
        expect(new Set(mine.map((row) => millis(row.created_at))).size).toBe(mine.length);
      }
      for (const row of rows) {
        expect(parseInt(row.id.replace('-', '').slice(0, 12), 16)).toBe(millis(row.created_at));
        expect(millis(row.updated_at)).toBe(millis(row.created_at));
        expect(millis(row.created_at)).toBeLessThan(Date.now());
      }
    });

    it('varies titles (three words of 50), pins about one in ten, gives every row a body holding the search terms', () => {
      const big = rows.filter((row) => row.owner_id === 'owner-big');
      expect(big.every((row) => /^[a-z]+ [a-z]+ [a-z]+$/.test(row.title))).toBe(true);
      expect(new Set(big.map((row) => row.title)).size).toBeGreaterThan(BIG * 0.9);
      const pinned = big.filter((row) => row.pinned === true || row.pinned === 1).length;
      expect(pinned).toBeGreaterThan(BIG * 0.04);
      expect(pinned).toBeLessThan(BIG * 0.2);
      const withBody = big.filter((row) => row.body !== null).length;
      expect(withBody).toBe(BIG); // every body ends with the term in every row (SEARCH_TERMS.everyRow)
      expect(big.every((row) => row.body!.endsWith('scale bench'))).toBe(true);
    });
  });
});
