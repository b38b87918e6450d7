import { DataTypes } from 'sequelize';
import { millisecondTimestamp } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';

// Session families for refresh rotation (REFRESH_ROTATION): `family_id` groups the tokens rotated from one
// login, `retired_at` marks a token a rotation replaced (kept until it expires, so its reuse can be told
// apart from a token never issued). Rows from before this migration become a family of their own (their
// digest), so tokens issued before the upgrade keep working. Both columns stay nullable: adding a NOT NULL
// column to a filled table is a rewrite on some engines, and the store reads a missing family as the digest.
export const addRefreshTokenFamilies: SqlMigration = {
  name: '0003-refresh-token-families',
  async up(queryInterface) {
    await queryInterface.addColumn('refresh_tokens', 'family_id', { type: DataTypes.STRING(64), allowNull: true });
    await queryInterface.addColumn('refresh_tokens', 'retired_at', { type: millisecondTimestamp(queryInterface), allowNull: true });
    await queryInterface.sequelize.query('UPDATE refresh_tokens SET family_id = token WHERE family_id IS NULL');
    await queryInterface.addIndex('refresh_tokens', ['family_id'], { name: 'refresh_tokens_family_id' });
  },
  async down(queryInterface) {
    await queryInterface.removeIndex('refresh_tokens', 'refresh_tokens_family_id');
    await queryInterface.removeColumn('refresh_tokens', 'retired_at');
    await queryInterface.removeColumn('refresh_tokens', 'family_id');
  },
};
