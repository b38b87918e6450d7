import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

// The Sequelize models over the tables the migrations create (src/stores/sql/migrations). The models never
// create or alter tables themselves (no sync): the schema belongs to the migrations.

export class UserRow extends Model<InferAttributes<UserRow>, InferCreationAttributes<UserRow>> {
  declare id: string;
  declare email: string;
  declare passwordHash: string;
  declare role: string;
  declare name: string | null;
}

export class RefreshTokenRow extends Model<InferAttributes<RefreshTokenRow>, InferCreationAttributes<RefreshTokenRow>> {
  declare token: string;
  declare userId: string;
  declare expiresAt: Date;
}

export interface SqlModels {
  User: typeof UserRow;
  RefreshToken: typeof RefreshTokenRow;
}

/** Binds fresh model classes to one Sequelize instance (several databases may live in one process: tests). */
export function defineModels(sequelize: Sequelize): SqlModels {
  class User extends UserRow {}
  User.init(
    {
      id: { type: DataTypes.STRING(36), primaryKey: true },
      email: { type: DataTypes.STRING(254), allowNull: false },
      passwordHash: { type: DataTypes.STRING(255), allowNull: false, field: 'password_hash' },
      role: { type: DataTypes.STRING(64), allowNull: false },
      name: { type: DataTypes.STRING(255), allowNull: true },
    },
    { sequelize, tableName: 'users', modelName: 'User', timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  );

  class RefreshToken extends RefreshTokenRow {}
  RefreshToken.init(
    {
      token: { type: DataTypes.CHAR(64), primaryKey: true },
      userId: { type: DataTypes.STRING(64), allowNull: false, field: 'user_id' },
      expiresAt: { type: DataTypes.DATE(3), allowNull: false, field: 'expires_at' },
    },
    { sequelize, tableName: 'refresh_tokens', modelName: 'RefreshToken', timestamps: true, createdAt: 'created_at', updatedAt: false },
  );

  return { User, RefreshToken };
}
