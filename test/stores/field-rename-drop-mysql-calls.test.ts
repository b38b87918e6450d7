import { Sequelize } from 'sequelize';
import { setFieldRules } from '../../src/stores/sql/migrations/check-constraints';
import { renameFieldColumn } from '../../src/stores/sql/migrations/field-rename-drop';

// What MySQL is asked by a rename and a rule change (MariaDB runs the same statements for real in
// field-rename-drop.test.ts and field-rules-database.test.ts, but accepts what MySQL 8 refuses): a column a
// CHECK uses is renamed in the ALTER that drops the CHECK and adds it again (MySQL 8.0.16+ answers error
// 3959 otherwise), and a CHECK is replaced in one ALTER, so a refused ADD keeps the old rule.

function mysql(checks: Record<string, string>, breaking = 0) {
  // No connection is needed to build SQL.
  const sequelize = new Sequelize('mysql://app:app@127.0.0.1:1/app', { logging: false });
  const queryInterface = sequelize.getQueryInterface();
  const calls: string[] = [];
  jest.spyOn(sequelize, 'query').mockImplementation((async (sql: string, options?: { type?: string }) => {
    if (options?.type === 'SELECT') {
      if (/CHECK_CONSTRAINTS/.test(sql))
        return Object.entries(checks).map(([name, definition]) => ({ name, definition }));
      if (/COUNT\(\*\)/.test(sql)) return [{ breaking }];
      return [];
    }
    calls.push(sql.replace(/\s+/g, ' ').trim());
    return [[], 0];
  }) as never);
  jest.spyOn(queryInterface, 'describeTable').mockResolvedValue({ priority: { type: 'INT' } } as never);
  jest.spyOn(queryInterface, 'showIndex').mockResolvedValue([] as never);
  return { queryInterface, calls };
}

describe('MySQL: the statements of a rename and a rule change', () => {
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
