import { setFieldRules } from '../../src/stores/sql/migrations/check-constraints';
import { setFieldDefault } from '../../src/stores/sql/migrations/field-changes';
import { setFieldRequired } from '../../src/stores/sql/migrations/field-nullability';
import { dropFieldColumn, renameFieldColumn } from '../../src/stores/sql/migrations/field-rename-drop';
import { addListIndexes } from '../../src/stores/sql/migrations/list-index-steps';
import { recordStatements, type StatementRecorder } from '../support/statement-recorder';

// What MySQL is asked by each change to a field (MariaDB runs the same statements for real in
// field-rename-drop.test.ts and field-rules-database.test.ts, but accepts what MySQL 8 refuses): a column a
// CHECK uses is renamed in the ALTER that drops the CHECK and adds it again (MySQL 8.0.16+ answers error
// 3959 otherwise), and a CHECK is replaced in one ALTER, so a refused ADD keeps the old rule.

function mysql(checks: Record<string, string>, breaking = 0): StatementRecorder {
  return recordStatements(
    'mysql://app:app@127.0.0.1:1/app',
    (sql) => {
      if (/CHECK_CONSTRAINTS/.test(sql))
        return Object.entries(checks).map(([name, definition]) => ({ name, definition }));
      if (/COUNT\(\*\)/.test(sql)) return [{ breaking }];
      if (/COLUMN_TYPE/.test(sql))
        return [{ type: 'int(11)', charset: null, collation: null, fallback: '3', version: '8.4.3' }];
      if (/REFERENCED_TABLE_NAME IS NOT NULL/.test(sql)) return [{ name: 'tickets_ibfk_1' }];
      return [];
    },
    {
      columns: { priority: { type: 'INT' } },
      indexes: [{ name: 'tickets_priority', fields: [{ attribute: 'priority' }] }],
    },
  );
}

describe('MySQL: the statements of each change to a field', () => {
  it('required: MODIFY restating the column as MySQL 8 shows it (its default a bare value there)', async () => {
    const { queryInterface, calls } = mysql({});
    await setFieldRequired(queryInterface, 'tickets', 'priority', true);
    expect(calls).toEqual(["ALTER TABLE `tickets` MODIFY `priority` int(11) NOT NULL DEFAULT '3'"]);
  });

  it('a default by ALTER COLUMN; a drop with its foreign key first (the index it uses is refused otherwise), then its indexes', async () => {
    const defaulted = mysql({});
    await setFieldDefault(defaulted.queryInterface, 'tickets', 'priority', 3);
    expect(defaulted.calls).toEqual(['ALTER TABLE `tickets` ALTER COLUMN `priority` SET DEFAULT 3']);
    const dropped = mysql({});
    await dropFieldColumn(dropped.queryInterface, 'tickets', 'priority');
    expect(dropped.calls).toEqual([
      'ALTER TABLE `tickets` DROP FOREIGN KEY `tickets_ibfk_1`',
      'DROP INDEX tickets_priority ON tickets',
      'ALTER TABLE `tickets` DROP COLUMN `priority`',
    ]);
  });

  it('a list index online: INPLACE, no lock', async () => {
    const { queryInterface, calls } = mysql({});
    await addListIndexes(queryInterface, 'tickets', [['owner_id', 'priority', 'id']]);
    expect(calls).toEqual([
      'ALTER TABLE `tickets` ADD INDEX `tickets_by_owner_priority` (`owner_id`, `priority`, `id`), ALGORITHM=INPLACE, LOCK=NONE',
    ]);
  });

  it('renames a column its CHECK uses in the ALTER that sets the CHECK aside and adds it under the new names', async () => {
    const { queryInterface, calls } = mysql({ tickets_priority_check: '(`priority` >= 1) and (`priority` <= 5)' });
    await renameFieldColumn(queryInterface, 'tickets', 'priority', 'rank');
    expect(calls).toEqual([
      'ALTER TABLE `tickets` DROP CONSTRAINT `tickets_priority_check`, RENAME COLUMN `priority` TO `rank`, ' +
        'ADD CONSTRAINT `tickets_rank_check` CHECK ((`rank` >= 1) and (`rank` <= 5))',
    ]);
  });

  it('renames a column without a CHECK with RENAME COLUMN alone', async () => {
    const { queryInterface, calls } = mysql({});
    await renameFieldColumn(queryInterface, 'tickets', 'priority', 'rank');
    expect(calls).toEqual(['ALTER TABLE `tickets` RENAME COLUMN `priority` TO `rank`']);
  });

  it('replaces a CHECK with one ALTER (DROP and ADD together), adds a first one alone', async () => {
    const replaced = mysql({ tickets_priority_check: '`priority` >= 1' });
    await setFieldRules(replaced.queryInterface, 'tickets', 'priority', { minimum: 2 });
    expect(replaced.calls).toEqual([
      'ALTER TABLE `tickets` DROP CONSTRAINT `tickets_priority_check`, ADD CONSTRAINT `tickets_priority_check` CHECK ((`priority` >= 2))',
    ]);
    const first = mysql({});
    await setFieldRules(first.queryInterface, 'tickets', 'priority', { minimum: 2 });
    expect(first.calls).toEqual([
      'ALTER TABLE `tickets` ADD CONSTRAINT `tickets_priority_check` CHECK ((`priority` >= 2))',
    ]);
  });
});
