import mongoose from 'mongoose';
import { DataTypes, Sequelize, type FindOptions, type Model, type ModelStatic } from 'sequelize';
import {
  DuplicateKeyError,
  MissingReferenceError,
  ReferencedRecordError,
  UniqueKeyError,
} from '../../src/stores/errors';
import { newId } from '../../src/stores/ids';
import type { MongoStoreContext, SqlStoreContext } from '../../src/stores/kit/definition';
import type { ListQuery } from '../../src/stores/kit/list-query';
import { MongoResourceStore } from '../../src/stores/mongo/resource-mongo-store';
import { withIncluded } from '../../src/http/routing/resource-include';
import { includesOf } from '../../src/stores/kit/includes';
import type { Resource } from '../../src/stores/kit/resource';
import { ownedRecordSchema, recordSchema } from '../../src/stores/mongo/record-schema';
import { binaryCollation } from '../../src/stores/sql/migrations/resource-columns';
import { addUniqueKey } from '../../src/stores/sql/migrations/unique-key';
import { setFieldDefault } from '../../src/stores/sql/migrations/field-changes';
import { createListIndexes, listIndexColumns } from '../../src/stores/sql/migrations/list-index-steps';
import { SqlResourceStore } from '../../src/stores/sql/resource-sql-store';
import { marks, notes, tags } from '../support/resource-fixtures';

// What the kit asks of the drivers on the engines no server runs for here (SQL Server, MongoDB), and of
// PostgreSQL's ordering: the statements and filters are built without a connection and read back. The
// same code runs against real servers in the contract suites wherever they can be started.

const list = (partial: Partial<ListQuery>): ListQuery => ({ where: [], sort: [], limit: 10, offset: 0, ...partial });

function sqlContext(dialect: 'mssql' | 'postgres'): SqlStoreContext {
  // No driver is needed to build SQL: a stand-in keeps tedious (whose Azure dependencies jest cannot load) out.
  const driver = dialect === 'mssql' ? { dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} } } : {};
  const sequelize = new Sequelize({ dialect, host: '127.0.0.1', port: 1, logging: false, ...driver });
  return {
    sequelize,
    DataTypes,
    engine: dialect,
    timeoutMs: 1000,
    run: (operation) => operation(),
    transaction: () => Promise.reject(new Error('unused')),
    selectByKey: () => Promise.reject(new Error('unused')),
    execute: () => Promise.reject(new Error('unused')),
    removeExpiredPeriodically: () => undefined,
  };
}

/** Every SELECT a list runs, in order, as the dialect writes it (the model's findAll is stopped before the network, answering no rows). */
async function listStatements(context: SqlStoreContext, query: ListQuery, keepAttributes = false): Promise<string[]> {
  const store = new SqlResourceStore(context, notes);
  const model = context.sequelize.models.KitNote as ModelStatic<Model>;
  const calls: FindOptions[] = [];
  jest.spyOn(model, 'findAll').mockImplementation(async (given) => {
    calls.push(given ?? {});
    // A search's short walk of the order (PostgreSQL, before its index) examines rows that do not match: it falls short.
    const walking = context.engine === 'postgres' && JSON.stringify(given?.attributes ?? []).includes('searchHit');
    return (
      walking
        ? Array.from({ length: Number(given?.limit ?? 0) }, (_, i) => ({
            id: `r${i}`,
            createdAt: new Date(2030, 0, 1, 0, 0, 60 - i),
            searchHit: 0,
          }))
        : []
    ) as never;
  });
  const counts: string[] = [];
  jest.spyOn(context.sequelize, 'query').mockImplementation((async (sql: string) => {
    counts.push(sql);
    return sql.includes(' OVER () ') ? [] : { n: 0 }; // a page read from the matches (PostgreSQL): none
  }) as never);
  await store.list({ ownerId: 'o' }, query);
  const generator = (
    context.sequelize.getQueryInterface() as unknown as {
      queryGenerator: { selectQuery(table: string, options: unknown, model: unknown): string };
    }
  ).queryGenerator;
  // As findAll does before it writes SQL: attribute names in where and order become column names.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Sequelize's own helper, not in its exports' types
  const { mapOptionFieldNames } = require('sequelize/lib/utils') as {
    mapOptionFieldNames(options: unknown, model: unknown): FindOptions;
  };
  return [
    ...calls.map((options) =>
      generator.selectQuery(
        'kit_notes',
        mapOptionFieldNames(keepAttributes ? options : { ...options, attributes: ['id'] }, model),
        model,
      ),
    ),
    ...counts,
  ];
}

const listSql = async (context: SqlStoreContext, query: ListQuery, keepAttributes = false) =>
  (await listStatements(context, query, keepAttributes)).join('\n');

describe('SQL Server: equality without trailing-space padding', () => {
  it('compares byte lengths beside the value, for eq and for each [in] value', async () => {
    const sql = await listSql(
      sqlContext('mssql'),
      list({
        where: [
          { field: 'title', comparison: 'eq', value: 'dup ' },
          { field: 'label', comparison: 'in', value: ['Work', 'x'] },
        ],
      }),
    );
    expect(sql).toContain("[title] = N'dup ' AND DATALENGTH([title]) = 8");
    expect(sql).toContain("[label_folded] = N'work' AND DATALENGTH([label_folded]) = 8");
    expect(sql).toContain("[label_folded] = N'x' AND DATALENGTH([label_folded]) = 2");
  });

  it('adds a persisted byte-length column to a unique key over a string, and indexes only rows where it is set', async () => {
    const { sequelize } = sqlContext('mssql');
    const queryInterface = sequelize.getQueryInterface();
    const statements: string[] = [];
    jest.spyOn(queryInterface, 'showIndex').mockResolvedValue([] as never);
    jest.spyOn(queryInterface, 'describeTable').mockResolvedValue({ title: { type: 'NVARCHAR(200)' } } as never);
    jest.spyOn(sequelize, 'query').mockImplementation(async (sql: unknown) => {
      statements.push(String(sql));
      return [[], 0] as never;
    });
    await addUniqueKey(queryInterface, 'notes', ['title']);
    expect(statements[0]).toMatch(
      /^SELECT \[owner_id\], \[title\], COUNT\(\*\) AS duplicates FROM \[notes\] WHERE \[owner_id\] IS NOT NULL AND \[title\] IS NOT NULL GROUP BY/,
    );
    expect(statements[1]).toBe('ALTER TABLE [notes] ADD [title_bytes] AS DATALENGTH([title]) PERSISTED');
    expect(statements[2]).toMatch(
      /CREATE UNIQUE INDEX \[notes_title_unique\] ON \[notes\] \(\[owner_id\], \[title\], \[title_bytes\]\) WHERE \[title\] IS NOT NULL/,
    );
  });

  it('counts in the database over at most the limit (plus one) of rows: OFFSET … FETCH inside the derived table', async () => {
    const [, count] = await listStatements(sqlContext('mssql'), list({ countUpTo: 500 }));
    expect(count).toBe(
      "SELECT COUNT(*) AS n FROM (SELECT [id] FROM [kit_notes] AS [KitNote] WHERE ([KitNote].[owner_id] = N'o') ORDER BY [KitNote].[id] OFFSET 0 ROWS FETCH NEXT 501 ROWS ONLY) AS bounded",
    );
  });

  it('names the binary collation of each engine', async () => {
    const collation = (dialect: 'mssql' | 'postgres') =>
      binaryCollation(sqlContext(dialect).sequelize.getQueryInterface());
    expect(await collation('mssql')).toBe(' COLLATE Latin1_General_100_BIN2');
    expect(await collation('postgres')).toBe(' COLLATE "C"');
  });
});

describe('PostgreSQL: every page a range of one index, nulls first as on the other engines', () => {
  it('reads a nullable key as two ranges (its nulls, then its values), never asking for NULLS FIRST on a bounded key', async () => {
    const [nulls, values, ...more] = await listStatements(
      sqlContext('postgres'),
      list({ sort: [{ field: 'dueAt', descending: false }] }),
    );
    expect(more).toEqual([]);
    // Ordered as the index (owner, dueAt, id) is, constant columns included: no engine then reads it another way.
    expect(nulls).toContain(
      'WHERE ("KitNote"."owner_id" = \'o\' AND "KitNote"."due_at" IS NULL) ORDER BY "KitNote"."owner_id" ASC, "KitNote"."due_at" ASC, "KitNote"."id" ASC LIMIT 11',
    );
    expect(values).toContain(
      'WHERE ("KitNote"."owner_id" = \'o\' AND "KitNote"."due_at" IS NOT NULL) ORDER BY "KitNote"."owner_id" ASC, "KitNote"."due_at" ASC, "KitNote"."id" ASC LIMIT 11',
    );
  });

  it('orders an unbounded nullable key NULLS FIRST ascending and NULLS LAST descending (an offset page)', async () => {
    const sql = await listSql(
      sqlContext('postgres'),
      list({
        sort: [
          { field: 'dueAt', descending: false },
          { field: 'rank', descending: true },
        ],
        offset: 3,
      }),
    );
    expect(sql).toContain(
      'ORDER BY "KitNote"."owner_id" ASC, "KitNote"."due_at" ASC NULLS FIRST, "KitNote"."rank" DESC NULLS LAST, "KitNote"."id" DESC',
    );
  });

  it('reads a cursor page as the rows equal to the cursor after its id, then the range after its value: no OR to filter through', async () => {
    const id = newId();
    const statements = await listStatements(
      sqlContext('postgres'),
      list({ sort: [{ field: 'title', descending: false }], after: ['b', id] }),
    );
    expect(statements).toHaveLength(2);
    expect(statements[0]).toContain(
      `WHERE ("KitNote"."owner_id" = 'o' AND "KitNote"."title" = 'b' AND "KitNote"."id" > '${id}') ORDER BY "KitNote"."owner_id" ASC, "KitNote"."title" ASC, "KitNote"."id" ASC LIMIT 11`,
    );
    expect(statements[1]).toContain(
      `WHERE ("KitNote"."owner_id" = 'o' AND "KitNote"."title" > 'b') ORDER BY "KitNote"."owner_id" ASC, "KitNote"."title" ASC, "KitNote"."id" ASC LIMIT 11`,
    );
    expect(statements.join()).not.toContain(' OR ');
  });

  it('counts only when asked, in the database, over at most the limit (plus one) of rows', async () => {
    expect(await listStatements(sqlContext('postgres'), list({}))).toHaveLength(1);
    const [, count] = await listStatements(sqlContext('postgres'), list({ countUpTo: 500 }));
    expect(count).toBe(
      `SELECT COUNT(*) AS n FROM (SELECT "id" FROM "kit_notes" AS "KitNote" WHERE ("KitNote"."owner_id" = 'o') LIMIT 501) AS bounded`,
    );
  });
});

describe('?q=: LIKE on the folded search shadow with an explicit escape, on every dialect', () => {
  it.each(['mssql', 'postgres'] as const)(
    '%s: %%, _, [ and ! escaped, ESCAPE given, each searched column ORed',
    async (dialect) => {
      const sql = await listSql(sqlContext(dialect), list({ search: 'ÉCOLE 100%_[x]!' }), true);
      const [title, body] =
        dialect === 'mssql' ? ['[title_search]', '[body_search]'] : ['"title_search"', '"body_search"'];
      const pattern = `${dialect === 'mssql' ? 'N' : ''}'%ecole 100!%!_![x]!!%'`;
      expect(sql).toContain(`(${title} LIKE ${pattern} ESCAPE '!' OR ${body} LIKE ${pattern} ESCAPE '!')`);
    },
  );

  it('SQL Server walks within the scan limit: a page of the sort index, each row its sort values and whether it matches; no LIKE in the WHERE', async () => {
    const [first, ...rest] = await listStatements(sqlContext('mssql'), list({ search: 'ecole', scanLimit: 500 }), true);
    expect(first).toContain(
      "CASE WHEN ([title_search] LIKE N'%ecole%' ESCAPE '!' OR [body_search] LIKE N'%ecole%' ESCAPE '!') THEN 1 ELSE 0 END AS [searchHit]",
    );
    expect(first).toMatch(/^SELECT \[created_at\] AS \[createdAt\], \[id\], CASE WHEN/);
    expect(first!.slice(first!.indexOf(' WHERE '))).not.toContain('LIKE');
    // The first read examines twice the page (10 + 1 wanted), in the owner's index order; answering no rows, it was the last.
    expect(first).toContain(
      'ORDER BY [KitNote].[owner_id] DESC, [KitNote].[created_at] DESC, [KitNote].[id] DESC OFFSET 0 ROWS FETCH NEXT 22 ROWS ONLY',
    );
    expect(rest).toEqual([]);
  });

  it('PostgreSQL: a term with three letters or digits in a row in the WHERE (its GIN index serves it) once a short walk fell short; another walked', async () => {
    const [probe, indexed] = await listStatements(sqlContext('postgres'), list({ search: 'eco' }), true);
    // A short walk of the page's order first (a common term fills it there), then the index for the rest.
    expect(probe).toContain('THEN 1 ELSE 0 END AS "searchHit"');
    expect(probe).toContain('LIMIT 22'); // twice the page (10 + 1 wanted), one read
    expect(indexed).toContain(
      `WHERE ("KitNote"."owner_id" = 'o' AND ("title_search" LIKE '%eco%' ESCAPE '!' OR "body_search" LIKE '%eco%' ESCAPE '!'))`,
    );
    // The walk met no match: the page is sorted from at most SEARCH_MATCH_BOUND matches, read apart from the order.
    expect(indexed).toMatch(/^SELECT \*, COUNT\(\*\) OVER \(\) AS "searchMatches" FROM \(SELECT "id", /);
    expect(indexed).toMatch(
      /LIMIT 10001\) AS matches ORDER BY "ownerId" DESC, "createdAt" DESC, "id" DESC LIMIT 11 OFFSET 0$/,
    );
    const [walked] = await listStatements(sqlContext('postgres'), list({ search: 'ÉC' }), true);
    expect(walked).toContain(
      `CASE WHEN ("title_search" LIKE '%ec%' ESCAPE '!' OR "body_search" LIKE '%ec%' ESCAPE '!') THEN 1 ELSE 0 END AS "searchHit"`,
    );
    expect(walked!.slice(walked!.indexOf(' WHERE '))).not.toContain('LIKE');
  });

  it('a quote in the text stays inside the literal', async () => {
    expect(await listSql(sqlContext('postgres'), list({ search: "o'clock" }))).toContain(
      `"title_search" LIKE '%o''clock%' ESCAPE '!'`,
    );
  });
});

describe('setFieldDefault: the column DEFAULT where the engine can change it in place', () => {
  async function statements(dialect: 'mssql' | 'postgres', value: string | boolean | null): Promise<string[]> {
    const { sequelize } = sqlContext(dialect);
    const run: string[] = [];
    jest.spyOn(sequelize, 'query').mockImplementation((async (
      sql: string,
      options?: { type?: string; replacements?: { columns?: string[] } },
    ) => {
      // The catalog's answer (mssql-dependants.ts): each column has a system-named default constraint.
      if (options?.type === 'SELECT')
        return /sys\.default_constraints/.test(sql)
          ? options.replacements!.columns!.map((column) => ({
              name: `DF__notes__${column}__1A2B`,
              definition: "('')",
              column,
            }))
          : [];
      run.push(sql);
      return [[], 0];
    }) as never);
    await setFieldDefault(sequelize.getQueryInterface(), 'notes', 'title', value, {
      caseInsensitive: true,
      search: true,
    });
    return run;
  }

  it('PostgreSQL: ALTER COLUMN … SET DEFAULT on the column and each shadow, folded as the store folds; DROP DEFAULT for null', async () => {
    expect(await statements('postgres', 'École')).toEqual([
      `ALTER TABLE "notes" ALTER COLUMN "title" SET DEFAULT 'École'`,
      `ALTER TABLE "notes" ALTER COLUMN "title_folded" SET DEFAULT 'école'`,
      `ALTER TABLE "notes" ALTER COLUMN "title_search" SET DEFAULT 'ecole'`,
    ]);
    expect((await statements('postgres', null))[0]).toBe('ALTER TABLE "notes" ALTER COLUMN "title" DROP DEFAULT');
  });

  it("SQL Server: drops the column's default constraint, whatever its name, then adds DF_<table>_<column>", async () => {
    expect((await statements('mssql', 'x')).slice(0, 2)).toEqual([
      'ALTER TABLE [notes] DROP CONSTRAINT [DF__notes__title__1A2B]',
      "ALTER TABLE [notes] ADD CONSTRAINT [DF_notes_title] DEFAULT N'x' FOR [title]",
    ]);
    expect((await statements('mssql', null)).some((sql) => sql.includes('ADD CONSTRAINT'))).toBe(false);
  });
});

describe('SQL Server: the same segments, and the list indexes its migrations create', () => {
  it('reads a descending cursor page on a nullable key as three ranges', async () => {
    const at = new Date('2030-01-01T00:00:00.000Z');
    const id = newId();
    const statements = await listStatements(
      sqlContext('mssql'),
      list({ sort: [{ field: 'dueAt', descending: true }], after: [at, id] }),
    );
    expect(statements).toHaveLength(3);
    expect(statements[0]).toContain(
      `[KitNote].[due_at] = N'2030-01-01 00:00:00.000 +00:00' AND [KitNote].[id] < N'${id}'`,
    );
    expect(statements[0]).toContain('ORDER BY [KitNote].[owner_id] DESC, [KitNote].[due_at] DESC, [KitNote].[id] DESC');
    expect(statements[1]).toContain(`[KitNote].[due_at] < N'2030-01-01 00:00:00.000 +00:00'`);
    expect(statements[1]).toContain('ORDER BY [KitNote].[owner_id] DESC, [KitNote].[due_at] DESC, [KitNote].[id] DESC');
    expect(statements[2]).toContain('[KitNote].[due_at] IS NULL');
    expect(statements[2]).toContain('ORDER BY [KitNote].[owner_id] DESC, [KitNote].[due_at] DESC, [KitNote].[id] DESC');
    for (const statement of statements) expect(statement).toContain('OFFSET 0 ROWS FETCH NEXT 11 ROWS ONLY');
  });

  it('creates each list index the declaration needs, on a new table', async () => {
    const { sequelize } = sqlContext('mssql');
    const queryInterface = sequelize.getQueryInterface();
    const statements: string[] = [];
    jest.spyOn(queryInterface, 'showIndex').mockResolvedValue([] as never);
    jest.spyOn(sequelize, 'query').mockImplementation(async (sql: unknown) => {
      statements.push(String(sql));
      return [[], 0] as never;
    });
    await createListIndexes(queryInterface, 'kit_notes', listIndexColumns(notes));
    expect(statements).toContain('CREATE INDEX [kit_notes_by_owner_title] ON [kit_notes] ([owner_id], [title], [id])');
    expect(statements).toContain('CREATE INDEX [kit_notes_by_title] ON [kit_notes] ([title], [id])');
    expect(statements).toContain(
      'CREATE INDEX [kit_notes_by_owner_pinned_due_at] ON [kit_notes] ([owner_id], [pinned], [due_at], [id])',
    );
    expect(statements).toContain(
      'CREATE INDEX [kit_notes_by_owner_label_folded_created_at] ON [kit_notes] ([owner_id], [label_folded], [created_at], [id])',
    );
    expect(statements).toHaveLength(listIndexColumns(notes).length);
  });
});

describe('MongoDB: what the store asks of mongoose', () => {
  const connection = mongoose.createConnection(); // never opened: only models and the calls made to them
  const context: MongoStoreContext = {
    connection,
    timeoutMs: 1000,
    Schema: mongoose.Schema,
    run: (operation) => operation(),
    recordSchema: (fields, options) => recordSchema(mongoose.Schema, fields, options),
    ownedRecordSchema: (fields, options) => ownedRecordSchema(mongoose.Schema, fields, options),
  };
  const stores = {
    notes: new MongoResourceStore(context, notes),
    tags: new MongoResourceStore(context, tags),
    marks: new MongoResourceStore(context, marks),
  };
  afterAll(() => connection.close());

  /** A query chain that records its filter and answers `result`. */
  function chain(result: unknown, seen: unknown[]) {
    const query = {
      sort: () => query,
      skip: () => query,
      limit: () => query,
      maxTimeMS: () => query,
      lean: () => query,
      exec: async () => result,
    };
    return (filter: unknown) => {
      seen.push(filter);
      return query;
    };
  }

  it('declares each unique key per owner as a partial unique index, on the shadow of a case-insensitive field, and indexes references', () => {
    expect(connection.models.KitNote!.schema.indexes()).toEqual(
      expect.arrayContaining([
        [
          { ownerId: 1, title: 1 },
          expect.objectContaining({ unique: true, partialFilterExpression: { title: { $type: 'string' } } }),
        ],
        [
          { ownerId: 1, labelFolded: 1 },
          expect.objectContaining({ unique: true, partialFilterExpression: { labelFolded: { $type: 'string' } } }),
        ],
      ]),
    );
    expect(connection.models.KitTag!.schema.indexes()).toEqual(
      expect.arrayContaining([[{ note: 1 }, expect.anything()]]),
    );
  });

  it('filters by owner, conditions and the cursor, and sorts with the id tiebreak', async () => {
    const filters: unknown[] = [];
    const model = connection.models.KitNote!;
    jest.spyOn(model, 'find').mockImplementation(chain([], filters) as never);
    jest.spyOn(model, 'countDocuments').mockImplementation(chain(0, []) as never);
    const after = [new Date('2030-01-01T00:00:00.000Z'), newId()];
    await stores.notes.list(
      { ownerId: 'o' },
      list({
        where: [
          { field: 'label', comparison: 'eq', value: 'WoRk' },
          { field: 'rank', comparison: 'gte', value: 2 },
        ],
        sort: [{ field: 'dueAt', descending: true }],
        after,
      }),
    );
    // The cursor's segments in order, each a range of (ownerId, dueAt, _id): equal after the id, the smaller values, the nulls.
    const own = [{ ownerId: 'o' }, { labelFolded: 'work' }, { rank: { $gte: 2 } }];
    expect(filters).toEqual([
      { $and: [...own, { dueAt: after[0] }, { _id: { $lt: after[1] } }] },
      { $and: [...own, { dueAt: { $lt: after[0] } }] },
      { $and: [...own, { dueAt: null }] },
    ]);
  });

  it('counts in the database, with countDocuments limited to the count limit plus one, and every read under the statement budget (maxTimeMS)', async () => {
    const model = connection.models.KitNote!;
    const budgets: number[] = [];
    const counted: unknown[] = [];
    const query = (result: unknown) => {
      const chained = {
        sort: () => chained,
        skip: () => chained,
        limit: () => chained,
        lean: () => chained,
        exec: async () => result,
        maxTimeMS: (ms: number) => (budgets.push(ms), chained),
      };
      return chained;
    };
    jest.spyOn(model, 'find').mockImplementation((() => query([])) as never);
    jest
      .spyOn(model, 'countDocuments')
      .mockImplementation(
        ((filter: unknown, options: unknown) => (counted.push([filter, options]), query(7))) as never,
      );
    const page = await stores.notes.list({ ownerId: 'o' }, list({ countUpTo: 500 }));
    expect(page).toMatchObject({ total: 7, totalCapped: false });
    expect(counted).toEqual([[{ $and: [{ ownerId: 'o' }] }, { limit: 501 }]]);
    expect(budgets.length).toBeGreaterThanOrEqual(2);
    expect(new Set(budgets)).toEqual(new Set([context.timeoutMs]));
  });

  it('?include= reads the records a page points at in one find per field, in the caller scope, by _id', async () => {
    const filters: unknown[] = [];
    jest
      .spyOn(connection.models.KitNote!, 'find')
      .mockImplementation(chain([{ _id: 'n1', ownerId: 'o', title: 't' }], filters) as never);
    const page = {
      items: [
        { id: 't1', note: 'n1' },
        { id: 't2', note: 'n1' },
        { id: 't3', note: 'n2' },
      ],
      limit: 3,
      offset: 0,
      nextCursor: null,
    };
    const answered = await withIncluded(
      page as never,
      includesOf(tags as unknown as Resource),
      () => ({ ownerId: 'o' }),
      () => stores.notes as never,
    );
    expect(filters).toEqual([{ $and: [{ ownerId: 'o' }, { $or: [{ _id: 'n1' }, { _id: 'n2' }] }] }]);
    expect(
      answered.items.map(
        (item) => (item as unknown as { included: { note: { id: string } | null } }).included.note?.id ?? null,
      ),
    ).toEqual(['n1', 'n1', null]);
  });

  it('declares the list indexes of every sort key and filter, for the owner and across owners', () => {
    const indexes = connection.models.KitNote!.schema.indexes().map(([keys]) => Object.keys(keys).join());
    for (const keys of [
      'ownerId,title,_id',
      'title,_id',
      'ownerId,dueAt,_id',
      'createdAt,_id',
      'ownerId,pinned,title,_id',
      'ownerId,labelFolded,createdAt,_id',
    ])
      expect(indexes).toContain(keys);
    expect(indexes.filter((keys) => keys === 'ownerId,createdAt,_id')).toHaveLength(1); // the record schema's, not twice
  });

  /** A query chain that records its arguments and the deadline it was given, and answers `result`. */
  interface Asked {
    args: unknown[];
    maxTimeMS?: number;
  }
  function asking(result: unknown, asked: Asked[]) {
    return (...args: unknown[]) => {
      const call: Asked = { args };
      asked.push(call);
      const query = {
        maxTimeMS: (ms: number) => ((call.maxTimeMS = ms), query),
        lean: () => query,
        exec: async () => result,
      };
      return query;
    };
  }

  it('refuses to delete a record a restricting reference points at, deleting nothing; cascades otherwise, deepest first', async () => {
    const deleted: string[] = [];
    const asked: Asked[] = [];
    jest.spyOn(connection.models.KitNote!, 'exists').mockImplementation(asking({ _id: 'n1' }, asked) as never);
    jest.spyOn(connection.models.KitTag!, 'exists').mockImplementation(asking({ _id: 't1' }, asked) as never);
    jest.spyOn(connection.models.KitTag!, 'find').mockImplementation(asking([{ _id: 't1' }], asked) as never);
    jest
      .spyOn(connection.models.KitMark!, 'find')
      .mockImplementation(asking([{ _id: 'm1' }, { _id: 'm2' }], asked) as never);
    for (const name of ['KitNote', 'KitTag', 'KitMark']) {
      jest.spyOn(connection.models[name]!, 'deleteMany').mockImplementation(((filter: { _id: { $in: string[] } }) => {
        deleted.push(`${name}:${filter._id.$in.join(',')}`);
        return { exec: async () => ({ deletedCount: 1 }) };
      }) as never);
    }
    await expect(stores.notes.delete(newId(), { ownerId: 'o' })).rejects.toEqual(new ReferencedRecordError('kit-tags'));
    expect(deleted).toEqual([]);
    expect(await stores.tags.delete(newId(), { ownerId: 'o' })).toBe(true);
    expect(deleted).toEqual(['KitMark:m1,m2', expect.stringMatching(/^KitTag:/)]);
    // every read (delete's exists, each step of the cascade plan) under the store deadline
    expect(asked.map((call) => call.maxTimeMS)).toEqual([1000, 1000, 1000, 1000]);
  });

  it("checks a reference among the writer's own records (the owner in the filter), under the store deadline", async () => {
    await expect(stores.tags.create('o', { name: 'x', note: 'not-an-id' })).rejects.toEqual(
      new MissingReferenceError('note'),
    ); // nothing asked
    const asked: Asked[] = [];
    const noteId = newId();
    jest.spyOn(connection.models.KitNoteReference!, 'exists').mockImplementation(asking(null, asked) as never);
    await expect(stores.tags.create('o', { name: 'x', note: noteId })).rejects.toEqual(
      new MissingReferenceError('note'),
    );
    expect(asked).toEqual([{ args: [{ _id: noteId, ownerId: 'o' }], maxTimeMS: 1000 }]);
  });

  it("finds which unique key clashed among the owner's other records, under the store deadline", async () => {
    const asked: Asked[] = [];
    const [noteId, tagId] = [newId(), newId()];
    jest
      .spyOn(connection.models.KitNoteReference!, 'exists')
      .mockImplementation(asking({ _id: noteId }, asked) as never);
    jest
      .spyOn(connection.models.KitTag!, 'findOne')
      .mockImplementation(asking({ _id: tagId, ownerId: 'o', name: 'old', note: noteId }, asked) as never);
    jest.spyOn(connection.models.KitTag!, 'findOneAndUpdate').mockImplementation(() => {
      throw new DuplicateKeyError();
    });
    jest.spyOn(connection.models.KitTag!, 'exists').mockImplementation(asking({ _id: newId() }, asked) as never);
    await expect(stores.tags.update(tagId, { ownerId: 'o' }, { name: 'taken' })).rejects.toEqual(
      new UniqueKeyError(['note', 'name']),
    );
    expect(asked.at(-1)).toEqual({
      args: [{ $and: [{ ownerId: 'o' }, { note: noteId }, { name: 'taken' }, { _id: { $ne: tagId } }] }],
      maxTimeMS: 1000,
    });
    expect(asked.map((call) => call.maxTimeMS)).toEqual([1000, 1000, 1000]);
  });

  it('walks ?q= within the scan limit: the sort index read projected to the sort values and an escaped, unanchored $regexMatch of the folded shadows; writes them with the record', async () => {
    const model = connection.models.KitNote!;
    const asked: { filter: unknown; projection: unknown; limit?: number }[] = [];
    const examined = [
      { _id: newId(), createdAt: new Date('2030-01-02T00:00:00.000Z'), searchHit: true },
      { _id: newId(), createdAt: new Date('2030-01-01T00:00:00.000Z'), searchHit: false },
    ];
    jest.spyOn(model, 'find').mockImplementation(((filter: unknown, projection: unknown) => {
      const call: (typeof asked)[number] = { filter, projection };
      asked.push(call);
      const result = projection
        ? examined
        : [
            {
              _id: examined[0]!._id,
              ownerId: 'o',
              title: 'Une École',
              createdAt: examined[0]!.createdAt,
              updatedAt: examined[0]!.createdAt,
            },
          ];
      const query = {
        sort: () => query,
        skip: () => query,
        limit: (n: number) => ((call.limit = n), query),
        maxTimeMS: () => query,
        lean: () => query,
        exec: async () => result,
      };
      return query;
    }) as never);
    const page = await stores.notes.list({ ownerId: 'o' }, list({ search: 'ÉCOLE (1.5)*', scanLimit: 500 }));
    const regex = 'ecole \\(1\\.5\\)\\*';
    expect(asked[0]).toEqual({
      filter: { $and: [{ ownerId: 'o' }] },
      projection: {
        createdAt: 1,
        _id: 1,
        searchHit: {
          $or: ['$titleSearch', '$bodySearch'].map((input) => ({
            $regexMatch: { input: { $ifNull: [input, ''] }, regex },
          })),
        },
      },
      limit: 22,
    });
    // Two examined, fewer than asked: the list ends there; the match is read whole by _id.
    expect(asked[1]).toEqual({
      filter: { $and: [{ ownerId: 'o' }, { _id: { $in: [examined[0]!._id] } }] },
      projection: undefined,
    });
    expect(page).toMatchObject({ items: [{ id: examined[0]!._id, title: 'Une École' }], nextCursor: null });
    jest.restoreAllMocks();
    const created: unknown[] = [];
    jest.spyOn(model, 'create').mockImplementation((async (document: Record<string, unknown>) => {
      created.push(document);
      return { toObject: () => ({ _id: newId(), ...document }) };
    }) as never);
    const record = await stores.notes.create('o', { title: 'Une École' } as never);
    // The defaults are the store's: written with the record, answered with it; shadows are never answered.
    expect(created).toEqual([
      expect.objectContaining({
        title: 'Une École',
        titleSearch: 'une ecole',
        starred: false,
        status: 'Open',
        statusFolded: 'open',
        ownerId: 'o',
      }),
    ]);
    expect(record).toMatchObject({ starred: false, status: 'Open', archivedAt: null, body: null });
    expect(record).not.toHaveProperty('titleSearch');
  });

  it("reads a field added after a document was written as its default; an action's guard is in the read, the stored updatedAt in the write", async () => {
    const asked: Asked[] = [];
    const model = connection.models.KitNote!;
    const id = newId();
    const stored = new Date('2031-01-01T00:00:00.000Z');
    jest
      .spyOn(model, 'findOne')
      .mockImplementation(asking({ _id: id, ownerId: 'o', title: 't', updatedAt: stored }, asked) as never);
    jest
      .spyOn(model, 'findOneAndUpdate')
      .mockImplementation(asking({ _id: id, ownerId: 'o', title: 't', archivedAt: new Date(0) }, asked) as never);
    const updated = await stores.notes.update(id, { ownerId: 'o' }, { archivedAt: new Date(0) } as never, {
      guard: [{ field: 'archivedAt', comparison: 'null', value: true }],
    });
    expect(updated).toMatchObject({ starred: false, status: 'Open', pinned: null });
    expect(asked.map((call) => call.args[0])).toEqual([
      { $and: [{ ownerId: 'o' }, { _id: id }, { archivedAt: null }] },
      { $and: [{ ownerId: 'o' }, { _id: id, updatedAt: stored }] },
    ]);
  });

  it("a state action's from is in the read's filter, and its stamped field and updatedAt are the write's one time, not mongoose's own", async () => {
    const asked: Asked[] = [];
    const model = connection.models.KitNote!;
    const id = newId();
    // Stored a moment in the future (another clock): the write's time is still after it, so the next write's condition moves.
    const stored = new Date(Date.now() + 60_000);
    jest
      .spyOn(model, 'findOne')
      .mockImplementation(
        asking({ _id: id, ownerId: 'o', title: 't', status: 'open', updatedAt: stored }, asked) as never,
      );
    jest
      .spyOn(model, 'findOneAndUpdate')
      .mockImplementation(asking({ _id: id, ownerId: 'o', title: 't', status: 'closed' }, asked) as never);
    await stores.notes.update(id, { ownerId: 'o' }, { status: 'closed' } as never, {
      guard: [{ field: 'status', comparison: 'in', value: ['open', 'in_progress'] }],
      stamped: ['archivedAt'],
    });
    expect(asked[0]!.args[0]).toEqual({
      $and: [{ ownerId: 'o' }, { _id: id }, { $or: [{ statusFolded: 'open' }, { statusFolded: 'in_progress' }] }],
    });
    const [filter, update, options] = asked[1]!.args as [
      unknown,
      { $set: Record<string, unknown> },
      Record<string, unknown>,
    ];
    expect(filter).toEqual({ $and: [{ ownerId: 'o' }, { _id: id, updatedAt: stored }] });
    const at = new Date(stored.getTime() + 1);
    expect(update.$set).toMatchObject({ status: 'closed', archivedAt: at, updatedAt: at });
    expect(options).toMatchObject({ timestamps: false });
  });
});
