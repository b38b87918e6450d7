import type {
  Model,
  ModelStatic,
  QueryTypes as SequelizeQueryTypes,
  Utils as SequelizeUtils,
  WhereOptions,
} from 'sequelize';

interface SelectQueryGenerator {
  selectQuery(
    table: unknown,
    options: { attributes: string[]; where?: WhereOptions; limit: number },
    model: ModelStatic<Model>,
  ): string;
}

/**
 * Sequelize's helpers from the instance's own class: the kit, and so this file, is loaded on MongoDB too, without
 * Sequelize.
 */
function helpers(model: ModelStatic<Model>) {
  return model.sequelize!.constructor as unknown as {
    Utils: typeof SequelizeUtils;
    QueryTypes: typeof SequelizeQueryTypes;
  };
}

/**
 * Sequelize's own SELECT of `attributes` for the model, at most `upTo` rows, without its `;`: each dialect writes
 * its limit as it does for a page (SQL Server: OFFSET … FETCH), attribute names in the conditions as columns.
 */
export function boundedSelect(
  model: ModelStatic<Model>,
  attributes: readonly string[],
  where: WhereOptions | undefined,
  upTo: number,
): string {
  const generator = model.sequelize!.getQueryInterface().queryGenerator as SelectQueryGenerator;
  // As findAll does before it writes SQL: attribute names in the conditions become column names.
  const options = helpers(model).Utils.mapOptionFieldNames(
    { attributes: [...attributes], where, limit: upTo },
    model as never,
  ) as { attributes: string[]; where?: WhereOptions; limit: number };
  return generator.selectQuery(model.getTableName(), options, model).replace(/;\s*$/, '');
}

/**
 * How many rows of `model` match `where`, reading at most `upTo` of them, counted by the database:
 * `SELECT COUNT(*) FROM (SELECT id … WHERE … LIMIT upTo) AS bounded`. The inner read stops at `upTo`
 * rows of the list's index, so a count of a big owner costs `upTo` index entries, and only one number
 * crosses the wire (not up to `upTo` ids).
 */
export async function boundedCount(
  model: ModelStatic<Model>,
  where: WhereOptions | undefined,
  upTo: number,
): Promise<number> {
  const inner = boundedSelect(model, ['id'], where, upTo);
  const row = await model.sequelize!.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM (${inner}) AS bounded`, {
    type: helpers(model).QueryTypes.SELECT,
    plain: true,
  });
  return Number(row?.n ?? 0);
}
