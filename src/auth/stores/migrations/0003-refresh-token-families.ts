import { dataTypesOf, millisecondTimestamp } from '../../../stores/sql/migrations/column-types';
import { dropFieldColumn } from '../../../stores/sql/migrations/field-rename-drop';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { addColumnIfMissing, addIndexIfMissing } from '../../../stores/sql/migrations/schema-steps';

// Session families for refresh rotation (REFRESH_ROTATION): `family_id` groups the tokens rotated from one
// login, `retired_at` marks a token a rotation replaced (kept until it expires, so its reuse can be told
// apart from a token never issued). Rows from before this migration become a family of their own (their
// digest), so tokens issued before the upgrade keep working. Both columns stay nullable: adding a NOT NULL
// column to a filled table is a rewrite on some engines, and the store reads a missing family as the digest.
export const addRefreshTokenFamilies: SqlMigration = {
  name: '0003-refresh-token-families',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    // Each step may run again (a retry after a failure on an engine without transactional DDL).
    await addColumnIfMissing(queryInterface, 'refresh_tokens', 'family_id', {
      type: DataTypes.STRING(64),
      allowNull: true,
    });
    await addColumnIfMissing(queryInterface, 'refresh_tokens', 'retired_at', {
      type: millisecondTimestamp(queryInterface),
      allowNull: true,
    });
    await queryInterface.sequelize.query('UPDATE refresh_tokens SET family_id = token WHERE family_id IS NULL');
    await addIndexIfMissing(queryInterface, 'refresh_tokens', ['family_id'], 'refresh_tokens_family_id');
  },
  // dropFieldColumn, not Sequelize's removeColumn: on SQLite that rebuilds the table without its other indexes.
  async down(queryInterface) {
    await dropFieldColumn(queryInterface, 'refresh_tokens', 'retired_at');
    await dropFieldColumn(queryInterface, 'refresh_tokens', 'family_id');
  },
  downDestroys: [
    { table: 'refresh_tokens', column: 'retired_at' },
    { table: 'refresh_tokens', column: 'family_id' },
  ],
};
