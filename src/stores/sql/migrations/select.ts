import type { QueryInterface } from 'sequelize';

// One read of the kit's schema steps: the rows alone, whatever the engine (PRAGMAs too).

export type Rows = Record<string, unknown>[];

export async function select(
  queryInterface: QueryInterface,
  sql: string,
  replacements: Record<string, unknown> = {},
): Promise<Rows> {
  // type SELECT ('SELECT' is QueryTypes.SELECT, not imported: the kit loads no Sequelize on MongoDB): the rows alone, PRAGMAs too.
  return (await queryInterface.sequelize.query(sql, {
    replacements,
    logging: false,
    type: 'SELECT' as never,
  })) as unknown as Rows;
}
