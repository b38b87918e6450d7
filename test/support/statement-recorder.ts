import { Sequelize, type QueryInterface } from 'sequelize';

// A dialect's query interface that runs nothing: the statements a migration step writes are recorded (spaces
// folded), and its catalog reads (SELECTs) are answered by `answer`, so a test pins what an engine no server here
// runs would be asked. No connection is needed to build SQL.

export interface StatementRecorder {
  queryInterface: QueryInterface;
  /** The statements written, in order; an index removed is recorded as `DROP INDEX <name> ON <table>`. */
  calls: string[];
}

export function recordStatements(
  url: string,
  answer: (sql: string, replacements: Record<string, unknown>) => Record<string, unknown>[],
  table: { columns: Record<string, unknown>; indexes: { name: string; fields: { attribute: string }[] }[] },
): StatementRecorder {
  const sequelize = new Sequelize(url, { logging: false });
  const queryInterface = sequelize.getQueryInterface();
  const calls: string[] = [];
  type Options = { type?: string; replacements?: Record<string, unknown> };
  jest.spyOn(sequelize, 'query').mockImplementation((async (sql: string, options?: Options) => {
    if (options?.type === 'SELECT') return answer(sql, options.replacements ?? {});
    calls.push(sql.replace(/\s+/g, ' ').trim());
    return [[], 0];
  }) as never);
  jest.spyOn(queryInterface, 'describeTable').mockResolvedValue(table.columns as never);
  jest.spyOn(queryInterface, 'showIndex').mockResolvedValue(table.indexes as never);
  jest.spyOn(queryInterface, 'removeIndex').mockImplementation((async (name: string, index: string) => {
    calls.push(`DROP INDEX ${index} ON ${name}`);
  }) as never);
  return { queryInterface, calls };
}
