import type { Sequelize } from 'sequelize';
import { SchemaDriftError } from '../../src/stores/errors';
import {
  addSearchIndex,
  createListIndexes,
  createRecordTable,
  defineResource,
  field,
  fieldColumns,
  listIndexColumns,
  removeSearchIndex,
  type SqlMigration,
} from '../../src/modules/kit';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { missingSearchIndex, searchIndexName } from '../../src/stores/sql/migrations/search-index';
import { SEARCH_MATCH_BOUND } from '../../src/stores/sql/page-from-matches';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';

// The substring indexes of the search shadows (search-index.ts): PostgreSQL's pg_trgm GIN indexes, table-wide and
// per owner, refused at start-up while missing (naming the command), added online over rows, and used by the
// store's LIKE; the
// engines without one (SQLite, MariaDB here) need none and walk instead (search-walk.ts).

const declaration = {
  fields: { title: field.string() },
  filters: [] as 'title'[],
  sort: ['title' as const],
  search: ['title' as const],
};

// A table as a module generated before search indexes were built: the shadow and the list indexes, no trigram index.
const createLegacy: SqlMigration = {
  name: 'search-index-fixture-0001-create',
  up: async (queryInterface) => {
    const c = await fieldColumns(queryInterface);
    await createRecordTable(queryInterface, 'si_notes', { ...c.string('title', { search: true }) });
    await createListIndexes(queryInterface, 'si_notes', listIndexColumns(declaration));
  },
  down: (queryInterface) => queryInterface.dropTable('si_notes'),
};

const legacy = defineResource({
  name: 'si-notes',
  table: 'si_notes',
  modelName: 'SiNote',
  ...declaration,
  migrations: [createLegacy],
});

describe('the search index name', () => {
  it('is <table>_<column>_trgm (per owner: _owner_trgm), shortened with a hash past 60 characters', () => {
    expect(searchIndexName('notes', 'title_search')).toBe('notes_title_search_trgm');
    expect(searchIndexName('notes', 'title_search', 'per-owner')).toBe('notes_title_search_owner_trgm');
    const long = searchIndexName('a_table_with_a_rather_long_name_indeed', 'and_a_long_column_name_search');
    expect(long).toHaveLength(60);
    expect(long).not.toBe(searchIndexName('a_table_with_a_rather_long_name_indeed', 'and_a_long_column_name_search2'));
  });
});

/** Every statement run through `sequelize` from now on, in order, until `spy.mockRestore()`. */
function recordStatements(sequelize: Sequelize): { asked: string[]; spy: jest.SpyInstance } {
  const asked: string[] = [];
  const query = sequelize.query.bind(sequelize);
  const spy = jest
    .spyOn(sequelize, 'query')
    .mockImplementation(((text: string, options: never) => (asked.push(String(text)), query(text, options))) as never);
  return { asked, spy };
}

/** The schema check's refusal, or undefined when it passes. */
async function refusal(database: SqlDatabase): Promise<unknown> {
  return database.checkSchema().then(
    () => undefined,
    (error: unknown) => error,
  );
}

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb' && engine.engine !== 'mssql')) {
  (target.skipReason ? describe.skip : describe)(`search index on ${target.label}`, () => {
    const opened = useEngineDatabase(target, [resourceStore(legacy)]);
    const sql = () => opened.database() as SqlDatabase;
    const postgres = target.engine === 'postgres';
    const perOwner = { searchIndex: 'per-owner' } as const;

    it(
      postgres
        ? 'refuses to start without both trigram indexes (table-wide, per owner), naming them and new:indexes; built online over rows, used by ?q=, then accepted'
        : 'needs none: the store walks',
      async () => {
        const store = sql().store(resourceStore(legacy));
        const run = Date.now(); // the database outlives a run: this run's owners
        for (let i = 0; i < 40; i += 1) await store.create(`owner-${run}-${i % 2}`, { title: `Tïtle ${i}` });
        const queryInterface = sql().queryInterface();
        const missing = () => missingSearchIndex(queryInterface, 'si_notes', ['title_search']);
        await removeSearchIndex(queryInterface, 'si_notes', ['title_search'], perOwner); // as the legacy table was made
        await removeSearchIndex(queryInterface, 'si_notes', ['title_search']);
        if (!postgres) {
          await expect(sql().checkSchema()).resolves.toBeUndefined();
          await addSearchIndex(queryInterface, 'si_notes', ['title_search'], perOwner); // nothing to build here
          expect(await missing()).toEqual([]);
          return;
        }
        const refused = await refusal(sql());
        expect(refused).toBeInstanceOf(SchemaDriftError);
        expect((refused as Error).message).toContain(
          "resource 'si-notes': table si_notes lacks the list indexes its declaration needs: the trigram index of title_search for ?q=; the per-owner trigram index (owner_id, title_search) for ?q=",
        );
        expect((refused as Error).message).toContain('npm run new:indexes -- si-notes');
        // The table-wide index alone, as a module generated before per-owner indexes has: still refused.
        await addSearchIndex(queryInterface, 'si_notes', ['title_search']);
        expect(await missing()).toEqual([{ column: 'title_search', shape: 'per-owner' }]);
        expect(String(await refusal(sql()))).toContain('the per-owner trigram index (owner_id, title_search) for ?q=');

        await addSearchIndex(queryInterface, 'si_notes', ['title_search'], perOwner);
        // Again, as after a half-applied run: nothing to do.
        await addSearchIndex(queryInterface, 'si_notes', ['title_search'], perOwner);
        await expect(sql().checkSchema()).resolves.toBeUndefined();
        // The store's own condition (LIKE … ESCAPE '!'), with the owner and without (an admin's search), is served by
        // the per-owner index when the planner may not scan the table nor use the table-wide one.
        await removeSearchIndex(queryInterface, 'si_notes', ['title_search'], { online: true });
        expect(await missing()).toEqual([{ column: 'title_search', shape: 'table-wide' }]);
        // (The list indexes set aside in a transaction rolled back: on 40 rows the owner's list index costs less.)
        const withoutListIndexes = `DO $$ DECLARE r record; BEGIN
          FOR r IN SELECT i.indexrelid::regclass AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_am am ON am.oid = c.relam WHERE i.indrelid = 'si_notes'::regclass AND am.amname = 'btree' AND NOT i.indisprimary
          LOOP EXECUTE 'DROP INDEX ' || r.name; END LOOP; END $$;`;
        for (const [owner, cond] of [
          [`owner_id = 'owner-${run}-1' AND `, `Index Cond: (((owner_id)::text = 'owner-${run}-1'::text) AND`],
          ['', 'Index Cond: ((title_search)::text ~~'],
        ]) {
          const [plan] = await queryInterface.sequelize.query(
            `BEGIN; ${withoutListIndexes} SET LOCAL enable_seqscan = off; EXPLAIN SELECT id FROM si_notes WHERE ${owner}title_search LIKE '%tle 1!%%' ESCAPE '!'; ROLLBACK;`,
          );
          expect(JSON.stringify(plan)).toContain('Bitmap Index Scan on si_notes_title_search_owner_trgm');
          expect(JSON.stringify(plan)).toContain(cond);
        }
        await addSearchIndex(queryInterface, 'si_notes', ['title_search']);
        const found = await store.list(
          { ownerId: `owner-${run}-1` },
          { where: [], sort: [], limit: 100, offset: 0, search: 'TITLE 1' },
        );
        expect(found.items.map((item) => item.title).sort()).toEqual([
          'Tïtle 1',
          'Tïtle 11',
          'Tïtle 13',
          'Tïtle 15',
          'Tïtle 17',
          'Tïtle 19',
        ]);

        await removeSearchIndex(queryInterface, 'si_notes', ['title_search'], { ...perOwner, online: true });
        expect(await missing()).toEqual([{ column: 'title_search', shape: 'per-owner' }]);
        await expect(sql().checkSchema()).rejects.toBeInstanceOf(SchemaDriftError);
        await addSearchIndex(queryInterface, 'si_notes', ['title_search'], perOwner); // as the next case finds it
      },
    );

    (postgres ? it : it.skip)(
      'asks the index only for a term with three letters or digits in a row that a short walk of the page did not find',
      async () => {
        const store = sql().store(resourceStore(legacy));
        const owner = `owner-probe-${Date.now()}`;
        for (let i = 0; i < 30; i += 1) await store.create(owner, { title: `Note ${i} -- x` });
        const sequelize = sql().queryInterface().sequelize;
        const { asked, spy } = recordStatements(sequelize);
        const list = async (search: string) => {
          asked.length = 0;
          const page = await store.list({ ownerId: owner }, { where: [], sort: [], limit: 5, offset: 0, search });
          return {
            found: page.items.length,
            walked: asked.filter((text) => text.includes('CASE WHEN')).length,
            indexed: asked.filter((text) => /WHERE .*title_search" LIKE/.test(text)).length,
          };
        };
        try {
          // In every row: one read of the order finds the page. In one row: that read falls short, the index finds it.
          expect(await list('note')).toEqual({ found: 5, walked: 1, indexed: 0 });
          expect(await list('note 17')).toEqual({ found: 1, walked: 1, indexed: 1 });
          // No three letters or digits in a row (`--`, `x`): pg_trgm has no trigram to look up, so the walk alone answers.
          expect(await list('-- x')).toMatchObject({ found: 5, indexed: 0 });
          expect(await list('---')).toMatchObject({ found: 0, indexed: 0 });
        } finally {
          spy.mockRestore();
        }
      },
    );

    (postgres ? it : it.skip)(
      'reads the page from the matches when the short walk met none, and from the order past SEARCH_MATCH_BOUND matches',
      async () => {
        const store = sql().store(resourceStore(legacy));
        const owner = `owner-bound-${Date.now()}`;
        const sequelize = sql().queryInterface().sequelize;
        // SEARCH_MATCH_BOUND + 5 older notes holding `zebra <n>`, then 50 newer ones without: the short walk meets
        // none.
        await sequelize.query(
          `INSERT INTO si_notes (id, owner_id, title, title_search, created_at, updated_at)
           SELECT gen_random_uuid()::text, :owner, t, t, c, c FROM (
             SELECT 'zebra ' || n AS t, now() - interval '1 day' + n * interval '1 ms' AS c FROM generate_series(1, :count) AS n
             UNION ALL SELECT 'plain ' || n, now() + n * interval '1 ms' FROM generate_series(1, 50) AS n) AS rows_`,
          { replacements: { owner, count: SEARCH_MATCH_BOUND + 5 } },
        );
        await sequelize.query('ANALYZE si_notes');
        const { asked, spy } = recordStatements(sequelize);
        const titles = async (search: string) => {
          asked.length = 0;
          const page = await store.list({ ownerId: owner }, { where: [], sort: [], limit: 5, offset: 0, search });
          return page.items.map((item) => item.title);
        };
        try {
          // 111 matches (77, 770–779, 7700–7799): sorted from them, the newest first.
          expect(await titles('ZEBRA 77')).toEqual([
            'zebra 7799',
            'zebra 7798',
            'zebra 7797',
            'zebra 7796',
            'zebra 7795',
          ]);
          expect(asked.filter((text) => text.includes('COUNT(*) OVER ()'))).toHaveLength(1);
          // More than the bound: the matches read stops there, and the page is read in the order.
          const bound = SEARCH_MATCH_BOUND + 5;
          expect(await titles('zebra')).toEqual([0, 1, 2, 3, 4].map((back) => `zebra ${bound - back}`));
          expect(asked.filter((text) => text.includes('COUNT(*) OVER ()'))).toHaveLength(1);
          expect(asked.at(-1)).toMatch(
            /ORDER BY "SiNote"\."owner_id" DESC, "SiNote"\."created_at" DESC, "SiNote"\."id" DESC LIMIT 6/,
          );
        } finally {
          spy.mockRestore();
        }
      },
      60_000,
    );
  });
}
