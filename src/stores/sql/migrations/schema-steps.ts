import type { ModelAttributeColumnOptions, QueryInterface } from 'sequelize';

// Migration steps that can run twice. On MySQL/MariaDB DDL is not transactional: a migration that failed
// after its first statement is retried with that statement already applied. These steps skip what is done.

/** Adds the column unless the table has it already. */
export async function addColumnIfMissing(
  queryInterface: QueryInterface,
  table: string,
  column: string,
  attributes: ModelAttributeColumnOptions,
): Promise<void> {
  const existing = await queryInterface.describeTable(table);
  if (!(column in existing)) await queryInterface.addColumn(table, column, attributes);
}

/** Adds the index unless one of that name exists already. */
export async function addIndexIfMissing(
  queryInterface: QueryInterface,
  table: string,
  columns: string[],
  name: string,
): Promise<void> {
  const indexes = (await queryInterface.showIndex(table)) as { name: string }[];
  if (!indexes.some((index) => index.name === name)) await queryInterface.addIndex(table, columns, { name });
}
