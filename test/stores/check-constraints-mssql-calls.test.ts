import { Sequelize } from 'sequelize';
import { CheckViolationError } from '../../src/stores/errors';
import {
  addFieldCheck,
  checkExpression,
  crossCheckExpression,
  removeFieldCheck,
  setFieldRules,
} from '../../src/stores/sql/migrations/check-constraints';
import { checkSignature, crossCheckSignature } from '../../src/stores/sql/migrations/check-catalog';
import { translateSqlError } from '../../src/stores/sql/sql-errors';

// What SQL Server is asked to hold a field's rules (no server runs here; the same steps run on SQLite,
// PostgreSQL and MariaDB in field-rules-database.test.ts): the rows breaking a new rule counted first, the
// old constraint <table>_<column>_check dropped and the new one added; its 547 for a CHECK constraint is the
// store's CheckViolationError naming the constraint, not a foreign key's.

function mssql(answers: { breaking?: number; existing?: string[] } = {}) {
  // No driver is needed to build SQL: a stand-in keeps tedious out (as in field-rename-drop-mssql-calls.test.ts).
  const sequelize = new Sequelize({
    dialect: 'mssql',
    host: '127.0.0.1',
    port: 1,
    logging: false,
    dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} },
  } as never);
  const calls: string[] = [];
  jest.spyOn(sequelize, 'query').mockImplementation((async (sql: string) => {
    calls.push(sql.replace(/\s+/g, ' ').trim());
    if (/^SELECT COUNT\(\*\)/.test(sql)) return [{ breaking: answers.breaking ?? 0 }];
    if (/sys\.check_constraints/.test(sql))
      return (answers.existing ?? []).map((name) => ({ name, definition: "([status]=N'open')" }));
    return [[], 0];
  }) as never);
  return { queryInterface: sequelize.getQueryInterface(), calls };
}

describe('SQL Server: a field rule as a CHECK constraint', () => {
  it('spells each rule for SQL Server: N literals, DATALENGTH for a length (LEN ignores trailing spaces), no pattern (no regular expressions)', () => {
    expect(checkExpression('mssql', '[status]', { enum: ['open', "it's"] })).toBe("([status] IN (N'open', N'it''s'))");
    expect(checkExpression('mssql', '[priority]', { minimum: 1, maximum: 5 })).toBe(
      '([priority] >= 1) AND ([priority] <= 5)',
    );
    expect(checkExpression('mssql', '[code]', { minLength: 3, pattern: '^[A-Z]{3}$' })).toBe(
      '(DATALENGTH([code]) >= 6)',
    );
    expect(checkExpression('mssql', '[code]', { pattern: '^[A-Z]{3}$' })).toBeUndefined();
    // How SQL Server shows it back compares equal: the literals in order.
    expect(checkSignature('([priority]>=(1) AND [priority]<=(5))')).toBe(
      checkSignature('([priority] >= 1) AND ([priority] <= 5)'),
    );
  });

  it('counts the breaking rows, drops the old constraint by its name, adds the new one', async () => {
    const { queryInterface, calls } = mssql({ existing: ['tickets_status_check'] });
    await setFieldRules(queryInterface, 'tickets', 'status', { enum: ['open', 'closed'] });
    expect(calls).toEqual([
      "SELECT COUNT(*) AS [breaking] FROM [tickets] WHERE [status] IS NOT NULL AND NOT (([status] IN (N'open', N'closed')))",
      'SELECT name AS [name], definition AS [definition] FROM sys.check_constraints WHERE parent_object_id = OBJECT_ID(:table)',
      'ALTER TABLE [tickets] DROP CONSTRAINT [tickets_status_check]',
      "ALTER TABLE [tickets] ADD CONSTRAINT [tickets_status_check] CHECK (([status] IN (N'open', N'closed')))",
    ]);
  });

  it('refuses a narrowed rule while rows break it, before any ALTER', async () => {
    const { queryInterface, calls } = mssql({ breaking: 7, existing: ['tickets_status_check'] });
    await expect(setFieldRules(queryInterface, 'tickets', 'status', { enum: ['open'] })).rejects.toThrow(
      '7 rows of tickets hold a status that is not one of: open',
    );
    expect(calls.filter((sql) => sql.startsWith('ALTER'))).toEqual([]);
  });

  it('tells 547 for a CHECK constraint from a foreign key one, with the constraint named', () => {
    const refused = Object.assign(new Error('x'), {
      original: {
        number: 547,
        message:
          'The INSERT statement conflicted with the CHECK constraint "tickets_status_check". The conflict occurred in database "app", table "dbo.tickets", column \'status\'.',
      },
    });
    const translated = translateSqlError(refused);
    expect(translated).toBeInstanceOf(CheckViolationError);
    expect((translated as CheckViolationError).constraint).toBe('tickets_status_check');
  });

  it('holds a check across columns: the breaking rows counted, then its own constraint added; removed by name; shown back alike', async () => {
    const { queryInterface, calls } = mssql({ existing: [] });
    await addFieldCheck(queryInterface, 'bookings', 'ends_at > starts_at');
    expect(calls).toEqual([
      'SELECT COUNT(*) AS [breaking] FROM [bookings] WHERE NOT ([ends_at] > [starts_at])',
      'SELECT name AS [name], definition AS [definition] FROM sys.check_constraints WHERE parent_object_id = OBJECT_ID(:table)',
      'ALTER TABLE [bookings] ADD CONSTRAINT [bookings_ends_at_gt_starts_at_check] CHECK ([ends_at] > [starts_at])',
    ]);
    const removed = mssql({ existing: ['bookings_used_ne_seats_check'] });
    await removeFieldCheck(removed.queryInterface, 'bookings', 'used != seats');
    expect(removed.calls.at(-1)).toBe('ALTER TABLE [bookings] DROP CONSTRAINT [bookings_used_ne_seats_check]');
    // SQL Server shows `([ends_at]>[starts_at])`, `<>` for `!=`.
    expect(crossCheckSignature('([used]<>[seats])')).toBe(
      crossCheckSignature(
        crossCheckExpression(queryInterface, { left: 'used', operator: '!=', right: 'seats', text: '' }),
      ),
    );
    await expect(
      addFieldCheck(mssql({ breaking: 2 }).queryInterface, 'bookings', 'ends_at > starts_at'),
    ).rejects.toThrow('2 rows of bookings break ends_at > starts_at');
  });
});

describe('MySQL 8: a check across columns', () => {
  it('is the ALTER MySQL 8 takes (no reference column: MySQL refuses a CHECK on a column with a foreign-key action), shown back alike', async () => {
    const sequelize = new Sequelize({
      dialect: 'mysql',
      host: '127.0.0.1',
      port: 1,
      logging: false,
      dialectModule: { createConnection: () => ({}), createPool: () => ({}) },
    } as never);
    const calls: string[] = [];
    jest.spyOn(sequelize, 'query').mockImplementation((async (sql: string) => {
      calls.push(sql.replace(/\s+/g, ' ').trim());
      return /^SELECT COUNT/.test(sql) ? [{ breaking: 0 }] : [];
    }) as never);
    await addFieldCheck(sequelize.getQueryInterface(), 'bookings', 'ends_at > starts_at');
    expect(calls.at(-1)).toBe(
      'ALTER TABLE `bookings` ADD CONSTRAINT `bookings_ends_at_gt_starts_at_check` CHECK (`ends_at` > `starts_at`)',
    );
    // information_schema.CHECK_CONSTRAINTS' CHECK_CLAUSE on MySQL 8: (`ends_at` > `starts_at`).
    expect(crossCheckSignature('(`ends_at` > `starts_at`)')).toBe(crossCheckSignature('`ends_at` > `starts_at`'));
  });
});
