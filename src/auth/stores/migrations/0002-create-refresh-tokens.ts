import { dataTypesOf, millisecondTimestamp } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';

// Refresh-token records. `token` is the SHA-256 digest (64 hex characters) of the refresh token and the
// primary key (so unique); `expires_at` is indexed for the cleanup job's range delete; `user_id` for
// per-user queries. No foreign key to users: with USER_STORE=demo the owner is not a row in `users`.
// DATE(3): millisecond precision on every engine, so expiry compares the same everywhere.
export const createRefreshTokens: SqlMigration = {
  name: '0002-create-refresh-tokens',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    await queryInterface.createTable(
      'refresh_tokens',
      {
        token: { type: DataTypes.CHAR(64), primaryKey: true, allowNull: false },
        user_id: { type: DataTypes.STRING(64), allowNull: false },
        expires_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
        created_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
      },
      { charset: 'utf8mb4' },
    );
    await queryInterface.addIndex('refresh_tokens', ['expires_at'], { name: 'refresh_tokens_expires_at' });
    await queryInterface.addIndex('refresh_tokens', ['user_id'], { name: 'refresh_tokens_user_id' });
  },
  async down(queryInterface) {
    await queryInterface.dropTable('refresh_tokens');
  },
  downDestroys: [{ table: 'refresh_tokens' }],
};
