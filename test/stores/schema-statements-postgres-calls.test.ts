import type { QueryInterface } from 'sequelize';
import { setFieldRules } from '../../src/stores/sql/migrations/check-constraints';
import { setFieldDefault } from '../../src/stores/sql/migrations/field-changes';
import { setFieldRequired } from '../../src/stores/sql/migrations/field-nullability';
import { dropFieldColumn, renameFieldColumn } from '../../src/stores/sql/migrations/field-rename-drop';
import { addListIndexes } from '../../src/stores/sql/migrations/list-index-steps';
import { recordStatements, type StatementRecorder } from '../support/statement-recorder';

// What PostgreSQL is asked by each of the kit's changes to a field (engines/postgres-*.ts), pinned as the
// SQL Server and MySQL statements are in their own tests; the same operations run for real on PostgreSQL in
// field-rename-drop.test.ts, field-rules-database.test.ts and the list index tests. Each is metadata only, or
// online (CONCURRENTLY), and a CHECK is replaced in one ALTER.

/** `foreignKeys`: the constraints pg_constraint holds, by name. */
function postgres(foreignKeys = ['tags_note_fkey']): StatementRecorder {
  return recordStatements(
    'postgres://app:app@127.0.0.1:1/app',
    (sql, replacements) => {
      if (/pg_constraint c JOIN/.test(sql)) return [{ name: 'tags_rank_check', definition: 'CHECK ((rank >= 1))' }];
      if (/conname FROM pg_constraint/.test(sql))
        return foreignKeys.filter((name) => name === replacements.name).map((conname) => ({ conname }));
      return [];
    },
    {
      columns: { note: { type: 'VARCHAR(36)', allowNull: true }, rank: { type: 'INTEGER', allowNull: true } },
      indexes: [{ name: 'tags_note', fields: [{ attribute: 'note' }] }],
    },
  );
}

describe('PostgreSQL: the statements of each change to a field', () => {
  it.each([
    [
      'required',
      (qi: QueryInterface) => setFieldRequired(qi, 'tags', 'note', true),
      ['ALTER TABLE "tags" ALTER COLUMN "note" SET NOT NULL'],
    ],
    [
      'a default',
      (qi: QueryInterface) => setFieldDefault(qi, 'tags', 'rank', 3),
      ['ALTER TABLE "tags" ALTER COLUMN "rank" SET DEFAULT 3'],
    ],
    [
      'a rule, in one ALTER',
      (qi: QueryInterface) => setFieldRules(qi, 'tags', 'rank', { minimum: 2 }),
      ['ALTER TABLE "tags" DROP CONSTRAINT "tags_rank_check", ADD CONSTRAINT "tags_rank_check" CHECK (("rank" >= 2))'],
    ],
    [
      'a rename, its foreign key named after it',
      (qi: QueryInterface) => renameFieldColumn(qi, 'tags', 'note', 'parent'),
      [
        'ALTER TABLE "tags" RENAME COLUMN "note" TO "parent"',
        'ALTER TABLE "tags" RENAME CONSTRAINT "tags_note_fkey" TO "tags_parent_fkey"',
      ],
    ],
    [
      'a drop, its indexes first',
      (qi: QueryInterface) => dropFieldColumn(qi, 'tags', 'note'),
      ['DROP INDEX tags_note ON tags', 'ALTER TABLE "tags" DROP COLUMN "note"'],
    ],
    [
      'a list index, online',
      (qi: QueryInterface) => addListIndexes(qi, 'tags', [['owner_id', 'rank', 'id']]),
      ['CREATE INDEX CONCURRENTLY IF NOT EXISTS "tags_by_owner_rank" ON "tags" ("owner_id", "rank", "id")'],
    ],
  ] as const)('%s', async (_change, change, statements) => {
    const { queryInterface, calls } = postgres();
    await change(queryInterface);
    expect(calls).toEqual(statements);
  });

  it('a rename whose foreign key has another name leaves the constraint alone', async () => {
    const { queryInterface, calls } = postgres(['tags_note_fk_custom']);
    await renameFieldColumn(queryInterface, 'tags', 'note', 'parent');
    expect(calls).toEqual(['ALTER TABLE "tags" RENAME COLUMN "note" TO "parent"']);
  });
});
