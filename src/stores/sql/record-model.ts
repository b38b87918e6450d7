import type { DataTypes as SequelizeDataTypes, Model, ModelAttributes, ModelStatic, Sequelize } from 'sequelize';

/** The columns every record table has, created by `recordTableColumns` in the store's first migration. */
export interface RecordRowAttributes {
  id: string;
  ownerId: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A Sequelize model over a record table (see `createRecordTable`): string id, owner, and millisecond
 * `created_at`/`updated_at` kept by Sequelize. Attribute names are camelCase, columns snake_case
 * (`underscored`). The model never creates or alters its table (no sync): the schema belongs to migrations.
 */
export function defineRecordModel(
  sequelize: Sequelize,
  modelName: string,
  tableName: string,
  attributes: ModelAttributes,
): ModelStatic<Model> {
  // From the instance, not imported: the kit is loaded by every module, on every engine.
  const DataTypes = (sequelize.constructor as unknown as { DataTypes: typeof SequelizeDataTypes }).DataTypes;
  return sequelize.define(
    modelName,
    {
      id: { type: DataTypes.STRING(36), primaryKey: true },
      ownerId: { type: DataTypes.STRING(64), allowNull: false },
      ...attributes,
      createdAt: { type: DataTypes.DATE(3), allowNull: false },
      updatedAt: { type: DataTypes.DATE(3), allowNull: false },
    },
    { tableName, underscored: true, timestamps: true },
  );
}
