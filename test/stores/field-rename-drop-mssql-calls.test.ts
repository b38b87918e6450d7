import { Sequelize } from 'sequelize';
import { dropFieldColumn, renameFieldColumn } from '../../src/stores/sql/migrations/field-rename-drop';

// What SQL Server is asked when a field is renamed or dropped (no server runs here; the same steps run on
// SQLite, PostgreSQL and MariaDB in field-rename-drop.test.ts): sp_rename for the column and the kit's index
// names, the unique keys over it rebuilt with their DATALENGTH columns, and a drop that removes the foreign
// key constraint, the indexes and the length columns before the column.

function mssql() {
  // No driver is needed to build SQL: a stand-in keeps tedious out (as in resource-driver-calls.test.ts).
  const sequelize = new Sequelize({ dialect: 'mssql', host: '127.0.0.1', port: 1, logging: false, dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} } } as never);
  const queryInterface = sequelize.getQueryInterface();
  const calls: string[] = [];
  jest.spyOn(sequelize, 'query').mockImplementation((async (sql: string) => {
    calls.push(sql.replace(/\s+/g, ' ').trim());
    if (/^SELECT fk\.name AS name/.test(sql)) return [[{ name: 'FK__tags__note__1234' }], 0];
    return [[], 0];
  }) as never);
  jest.spyOn(queryInterface, 'removeIndex').mockImplementation((async (table: string, name: string) => void calls.push(`removeIndex ${table}.${name}`)) as never);
  jest.spyOn(queryInterface, 'removeColumn').mockImplementation((async (table: string, name: string) => void calls.push(`removeColumn ${table}.${name}`)) as never);
  jest.spyOn(queryInterface, 'addIndex').mockImplementation((async (table: string, columns: string[], options: { name: string }) => void calls.push(`addIndex ${table}.${options.name} (${columns.join(', ')})`)) as never);
  return { queryInterface, calls };
}

const index = (name: string, columns: string[], unique = false) => ({ name, unique, primary: false, fields: columns.map((attribute) => ({ attribute })) });

describe('SQL Server: renaming and dropping a field', () => {
  it('renames with sp_rename, rebuilds the unique key over it (with its byte length) and renames the kit-named indexes', async () => {
    const { queryInterface, calls } = mssql();
    jest
      .spyOn(queryInterface, 'describeTable')
      .mockResolvedValueOnce({ name: { type: 'NVARCHAR(200)' }, note: { type: 'NVARCHAR(36)' }, name_bytes: { type: 'INT' }, note_bytes: { type: 'INT' } } as never) // before
      .mockResolvedValue({ label: { type: 'NVARCHAR(200)' }, note: { type: 'NVARCHAR(36)' }, note_bytes: { type: 'INT' } } as never); // addUniqueKey's look after
    jest
      .spyOn(queryInterface, 'showIndex')
      .mockResolvedValueOnce([index('tags_note_name_unique', ['owner_id', 'note', 'name', 'note_bytes', 'name_bytes'], true), index('tags_by_owner_name', ['owner_id', 'name', 'id'])] as never)
      .mockResolvedValueOnce([index('tags_by_owner_name', ['owner_id', 'label', 'id'])] as never)
      .mockResolvedValue([] as never);
    await renameFieldColumn(queryInterface, 'tags', 'name', 'label');
    expect(calls).toEqual([
      'removeIndex tags.tags_note_name_unique',
      'removeColumn tags.name_bytes',
      "EXEC sp_rename N'tags.name', N'label', N'COLUMN'",
      "EXEC sp_rename N'tags.tags_by_owner_name', N'tags_by_owner_label', N'INDEX'",
      expect.stringMatching(/^SELECT \[owner_id\], \[note\], \[label\], COUNT\(\*\) AS duplicates FROM \[tags\]/),
      'ALTER TABLE [tags] ADD [label_bytes] AS DATALENGTH([label]) PERSISTED',
      'addIndex tags.tags_note_label_unique (owner_id, note, label, note_bytes, label_bytes)', // note's length kept, label's made
      expect.stringMatching(/FROM sys\.check_constraints/), // its CHECK constraint (none here) would be renamed with it
    ]);
  });

  it('drops the foreign key constraint, the indexes and their length columns, then the column', async () => {
    const { queryInterface, calls } = mssql();
    jest.spyOn(queryInterface, 'describeTable').mockResolvedValue({ name: { type: 'NVARCHAR(200)' }, name_bytes: { type: 'INT' }, note: { type: 'NVARCHAR(36)' }, note_bytes: { type: 'INT' } } as never);
    jest
      .spyOn(queryInterface, 'showIndex')
      .mockResolvedValueOnce([index('tags_note_name_unique', ['owner_id', 'note', 'name', 'note_bytes', 'name_bytes'], true), index('tags_note', ['note']), index('tags_by_owner_name', ['owner_id', 'name', 'id'])] as never)
      .mockResolvedValue([index('tags_by_owner_name', ['owner_id', 'name', 'id'])] as never);
    await dropFieldColumn(queryInterface, 'tags', 'note');
    expect(calls).toEqual([
      expect.stringMatching(/FROM sys\.check_constraints/), // its CHECK constraint first (none here)
      expect.stringMatching(/^SELECT fk\.name AS name FROM sys\.foreign_keys/),
      'ALTER TABLE [tags] DROP CONSTRAINT [FK__tags__note__1234]',
      'removeIndex tags.tags_note_name_unique',
      'removeColumn tags.note_bytes', // the dropped column's length; name's stays with name
      'removeIndex tags.tags_note',
      'removeColumn tags.name_bytes', // no key uses it any more
      'ALTER TABLE [tags] DROP COLUMN [note]',
    ]);
  });
});
