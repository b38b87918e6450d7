import { Sequelize } from 'sequelize';
import { setFieldDefault } from '../../src/stores/sql/migrations/field-changes';
import { setFieldRequired } from '../../src/stores/sql/migrations/field-nullability';
import { dropFieldColumn, renameFieldColumn } from '../../src/stores/sql/migrations/field-rename-drop';

// What SQL Server is asked by every change to a field (no server runs here; the same steps run on SQLite,
// PostgreSQL and MariaDB in field-rename-drop.test.ts and field-nullability tests). SQL Server refuses to
// ALTER or DROP a column anything depends on (Msg 5074/4922), so each change sets aside the column's whole
// dependant set as the catalog lists it — foreign key, indexes, computed lengths, DEFAULT and CHECK
// constraints — and makes again what still applies. The fake catalog below answers the dependants queries
// for the columns each one asks about.

interface Catalog {
  computed: { name: string; definition: string; uses: string[] }[];
  checks: { name: string; definition: string; uses: string[] }[];
  defaults: { name: string; definition: string; column: string }[];
  foreignKeys: {
    name: string;
    column: string;
    table: string;
    referenced: string;
    onDelete: string;
    onUpdate?: string;
  }[];
  indexes: {
    name: string;
    unique: boolean;
    filter: string | null;
    columns: string[];
    descending?: string[];
    included?: string[];
    fillFactor?: number;
    ignoreDupKey?: boolean;
  }[];
}

/** tags: name (a default, a CHECK rule, in a unique key with note) and note (a reference to notes). */
const catalog = (): Catalog => ({
  computed: [
    { name: 'name_bytes', definition: '(datalength([name]))', uses: ['name'] },
    { name: 'note_bytes', definition: '(datalength([note]))', uses: ['note'] },
  ],
  checks: [{ name: 'tags_name_check', definition: '(len([name])>=(2))', uses: ['name'] }],
  defaults: [{ name: 'DF__tags__name__5AEE82B9', definition: "(N'untitled')", column: 'name' }],
  foreignKeys: [
    { name: 'FK__tags__note__1234', column: 'note', table: 'notes', referenced: 'id', onDelete: 'CASCADE' },
  ],
  indexes: [
    { name: 'tags_by_owner_name', unique: false, filter: null, columns: ['owner_id', 'name', 'id'] },
    { name: 'tags_note', unique: false, filter: null, columns: ['note'] },
    {
      name: 'tags_note_name_unique',
      unique: true,
      filter: '([note] IS NOT NULL AND [name] IS NOT NULL)',
      columns: ['owner_id', 'note', 'name', 'note_bytes', 'name_bytes'],
    },
  ],
});

function answer(
  sql: string,
  replacements: { columns?: string[]; indexedColumns?: string[] },
  table: Catalog,
): Record<string, unknown>[] {
  const asked = replacements.columns ?? [];
  if (/FROM sys\.computed_columns/.test(sql))
    return table.computed
      .filter((c) => c.uses.some((u) => asked.includes(u)))
      .map(({ name, definition }) => ({ name, definition, persisted: true }));
  if (/FROM sys\.check_constraints/.test(sql)) return table.checks.filter((c) => c.uses.some((u) => asked.includes(u)));
  if (/FROM sys\.default_constraints/.test(sql)) return table.defaults.filter((d) => asked.includes(d.column));
  if (/FROM sys\.foreign_keys/.test(sql)) return table.foreignKeys.filter((k) => asked.includes(k.column));
  if (/FROM sys\.indexes/.test(sql)) {
    return table.indexes
      .filter((index) =>
        [...index.columns, ...(index.included ?? [])].some((column) => replacements.indexedColumns!.includes(column)),
      )
      .flatMap((index) => [
        ...index.columns.map((column) => ({
          name: index.name,
          unique: index.unique,
          filter: index.filter,
          fillFactor: index.fillFactor ?? 0,
          ignoreDupKey: index.ignoreDupKey ?? false,
          column,
          included: false,
          descending: index.descending?.includes(column) ?? false,
        })),
        ...(index.included ?? []).map((column) => ({ name: index.name, column, included: true })),
      ]);
  }
  if (/INFORMATION_SCHEMA\.COLUMNS/.test(sql))
    return [{ type: 'nvarchar', length: 200, precision: null, collation: 'Latin1_General_100_BIN2' }];
  if (/COUNT\(\*\)/.test(sql)) return [{ count: 0 }];
  return [];
}

function mssql(
  described: Record<string, { type: string; allowNull?: boolean }>,
  indexesAfter: string[][] = [],
  shape: (table: Catalog) => void = () => undefined,
) {
  // No driver is needed to build SQL: a stand-in keeps tedious out (as in resource-driver-calls.test.ts).
  const sequelize = new Sequelize({
    dialect: 'mssql',
    host: '127.0.0.1',
    port: 1,
    logging: false,
    dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} },
  } as never);
  const queryInterface = sequelize.getQueryInterface();
  const table = catalog();
  shape(table);
  const calls: string[] = [];
  jest.spyOn(sequelize, 'query').mockImplementation((async (
    sql: string,
    options?: { type?: string; replacements?: Record<string, string[]> },
  ) => {
    if (options?.type === 'SELECT') return answer(sql, options.replacements ?? {}, table);
    calls.push(sql.replace(/\s+/g, ' ').trim());
    return [[], 0];
  }) as never);
  jest.spyOn(queryInterface, 'describeTable').mockResolvedValue(described as never);
  const shown = indexesAfter.map(([name, ...columns]) => ({
    name,
    unique: false,
    primary: false,
    fields: columns.map((attribute) => ({ attribute })),
  }));
  jest.spyOn(queryInterface, 'showIndex').mockResolvedValue(shown as never);
  return { queryInterface, calls };
}

const TAGS = {
  name: { type: 'NVARCHAR(200)', allowNull: true },
  name_bytes: { type: 'INT' },
  note: { type: 'NVARCHAR(36)' },
  note_bytes: { type: 'INT' },
};

/** What dropping name's dependants is, in every change below. */
const NAME_ASIDE = [
  'ALTER TABLE [tags] DROP CONSTRAINT [tags_name_check]',
  'ALTER TABLE [tags] DROP CONSTRAINT [DF__tags__name__5AEE82B9]',
  'DROP INDEX [tags_by_owner_name] ON [tags]',
  'DROP INDEX [tags_note_name_unique] ON [tags]',
  'ALTER TABLE [tags] DROP COLUMN [name_bytes]',
];

describe("SQL Server: every change to a field goes past the column's whole dependant set", () => {
  it('required/optional: the computed length, its unique key, the other index, the default and the CHECK set aside around ALTER COLUMN (Msg 5074 otherwise)', async () => {
    const { queryInterface, calls } = mssql(TAGS);
    await setFieldRequired(queryInterface, 'tags', 'name', true);
    expect(calls).toEqual([
      ...NAME_ASIDE,
      'ALTER TABLE [tags] ALTER COLUMN [name] NVARCHAR(200) COLLATE Latin1_General_100_BIN2 NOT NULL',
      'ALTER TABLE [tags] ADD [name_bytes] AS (datalength([name])) PERSISTED',
      'CREATE INDEX [tags_by_owner_name] ON [tags] ([owner_id], [name], [id])',
      'CREATE UNIQUE INDEX [tags_note_name_unique] ON [tags] ([owner_id], [note], [name], [note_bytes], [name_bytes]) WHERE ([note] IS NOT NULL AND [name] IS NOT NULL)',
      "ALTER TABLE [tags] ADD CONSTRAINT [DF__tags__name__5AEE82B9] DEFAULT (N'untitled') FOR [name]",
      'ALTER TABLE [tags] ADD CONSTRAINT [tags_name_check] CHECK (len([name])>=(2))',
    ]);
  });

  it('required/optional of a reference: its foreign key with its ON DELETE rule set aside and made again', async () => {
    const { queryInterface, calls } = mssql({ ...TAGS, note: { type: 'NVARCHAR(36)', allowNull: true } });
    await setFieldRequired(queryInterface, 'tags', 'note', true);
    expect(calls).toEqual([
      'ALTER TABLE [tags] DROP CONSTRAINT [FK__tags__note__1234]',
      'DROP INDEX [tags_note] ON [tags]',
      'DROP INDEX [tags_note_name_unique] ON [tags]',
      'ALTER TABLE [tags] DROP COLUMN [note_bytes]',
      'ALTER TABLE [tags] ALTER COLUMN [note] NVARCHAR(200) COLLATE Latin1_General_100_BIN2 NOT NULL',
      'ALTER TABLE [tags] ADD [note_bytes] AS (datalength([note])) PERSISTED',
      'CREATE INDEX [tags_note] ON [tags] ([note])',
      'CREATE UNIQUE INDEX [tags_note_name_unique] ON [tags] ([owner_id], [note], [name], [note_bytes], [name_bytes]) WHERE ([note] IS NOT NULL AND [name] IS NOT NULL)',
      'ALTER TABLE [tags] ADD CONSTRAINT [FK__tags__note__1234] FOREIGN KEY ([note]) REFERENCES [notes] ([id]) ON DELETE CASCADE',
    ]);
  });

  it("a hand-written index's INCLUDE columns, DESC order and fill factor, and a foreign key's ON UPDATE, made again as they were", async () => {
    const { queryInterface, calls } = mssql(
      { ...TAGS, note: { type: 'NVARCHAR(36)', allowNull: true } },
      [],
      (table) => {
        table.indexes.push({
          name: 'tags_recent',
          unique: false,
          filter: null,
          columns: ['name', 'created_at'],
          descending: ['created_at'],
          included: ['note'],
          fillFactor: 80,
        });
        table.foreignKeys[0]!.onUpdate = 'CASCADE';
      },
    );
    await setFieldRequired(queryInterface, 'tags', 'note', true);
    expect(calls).toContain(
      'CREATE INDEX [tags_recent] ON [tags] ([name], [created_at] DESC) INCLUDE ([note]) WITH (FILLFACTOR = 80)',
    );
    expect(calls).toContain(
      'ALTER TABLE [tags] ADD CONSTRAINT [FK__tags__note__1234] FOREIGN KEY ([note]) REFERENCES [notes] ([id]) ON DELETE CASCADE ON UPDATE CASCADE',
    );
  });

  it("an index's IGNORE_DUP_KEY and PAD_INDEX made again with it; sp_rename carries such an index untouched", async () => {
    const dups = (table: Catalog) =>
      table.indexes.push({ name: 'tags_name_dups', unique: true, filter: null, columns: ['name'], ignoreDupKey: true });
    const required = mssql(TAGS, [], dups);
    await setFieldRequired(required.queryInterface, 'tags', 'name', true);
    expect(required.calls).toContain(
      'CREATE UNIQUE INDEX [tags_name_dups] ON [tags] ([name]) WITH (IGNORE_DUP_KEY = ON)',
    );
    const renamed = mssql(TAGS, [], dups);
    await renameFieldColumn(renamed.queryInterface, 'tags', 'name', 'label');
    expect(renamed.calls.some((call) => call.includes('tags_name_dups'))).toBe(false);
  });

  it('drop: the DEFAULT constraint (system-named) and the CHECK go first with the rest, none made again; a length no key uses any more goes too', async () => {
    const { queryInterface, calls } = mssql(TAGS, [['tags_note', 'note']]);
    await dropFieldColumn(queryInterface, 'tags', 'name');
    expect(calls).toEqual([
      ...NAME_ASIDE,
      'ALTER TABLE [tags] DROP COLUMN [note_bytes]',
      'ALTER TABLE [tags] DROP COLUMN [name]',
    ]);
  });

  it('rename: sp_rename carries the plain indexes and the foreign key; the length, its key, the default and the CHECK are made again under the new name', async () => {
    const { queryInterface, calls } = mssql(TAGS, [
      ['tags_by_owner_name', 'owner_id', 'label', 'id'],
      ['tags_note', 'note'],
    ]);
    await renameFieldColumn(queryInterface, 'tags', 'name', 'label');
    expect(calls).toEqual([
      'ALTER TABLE [tags] DROP CONSTRAINT [tags_name_check]',
      'ALTER TABLE [tags] DROP CONSTRAINT [DF__tags__name__5AEE82B9]',
      'DROP INDEX [tags_note_name_unique] ON [tags]',
      'ALTER TABLE [tags] DROP COLUMN [name_bytes]',
      "EXEC sp_rename N'tags.name', N'label', N'COLUMN'",
      "EXEC sp_rename N'tags.tags_by_owner_name', N'tags_by_owner_label', N'INDEX'",
      'ALTER TABLE [tags] ADD [label_bytes] AS (datalength([label])) PERSISTED',
      'CREATE UNIQUE INDEX [tags_note_label_unique] ON [tags] ([owner_id], [note], [label], [note_bytes], [label_bytes]) WHERE ([note] IS NOT NULL AND [label] IS NOT NULL)',
      "ALTER TABLE [tags] ADD CONSTRAINT [DF__tags__name__5AEE82B9] DEFAULT (N'untitled') FOR [label]",
      'ALTER TABLE [tags] ADD CONSTRAINT [tags_label_check] CHECK (len([label])>=(2))',
    ]);
  });

  it("default: the column's one default constraint, whatever its name, replaced by DF_<table>_<column>; taken away, just dropped", async () => {
    const given = mssql(TAGS);
    await setFieldDefault(given.queryInterface, 'tags', 'name', 'none yet');
    expect(given.calls).toEqual([
      'ALTER TABLE [tags] DROP CONSTRAINT [DF__tags__name__5AEE82B9]',
      "ALTER TABLE [tags] ADD CONSTRAINT [DF_tags_name] DEFAULT N'none yet' FOR [name]",
    ]);
    const removed = mssql(TAGS);
    await setFieldDefault(removed.queryInterface, 'tags', 'name', null);
    expect(removed.calls).toEqual(['ALTER TABLE [tags] DROP CONSTRAINT [DF__tags__name__5AEE82B9]']);
  });
});
