import { dataTypesOf, millisecondTimestamp } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { binaryCollation } from '../../../stores/sql/migrations/resource-columns';

// Single-use account tokens (password reset, email verification): `digest` is the SHA-256 of the token
// (64 hex characters, compared exactly: the binary collation), `expires_at` indexed for the clean-up job,
// (user_id, purpose) for "every link of this user goes".
export const createAccountTokens: SqlMigration = {
  name: '0007-create-account-tokens',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    const collation = await binaryCollation(queryInterface);
    const digestType = `${queryInterface.sequelize.getDialect() === 'mssql' ? 'NVARCHAR' : 'VARCHAR'}(64)${collation}`;
    await queryInterface.createTable(
      'account_tokens',
      {
        digest: { type: digestType, primaryKey: true, allowNull: false },
        user_id: { type: DataTypes.STRING(64), allowNull: false },
        purpose: { type: DataTypes.STRING(32), allowNull: false },
        expires_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
        created_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
      },
      { charset: 'utf8mb4' },
    );
    await queryInterface.addIndex('account_tokens', ['expires_at'], { name: 'account_tokens_expires_at' });
    await queryInterface.addIndex('account_tokens', ['user_id', 'purpose'], { name: 'account_tokens_user_purpose' });
  },
  async down(queryInterface) {
    await queryInterface.dropTable('account_tokens');
  },
  downDestroys: [{ table: 'account_tokens' }],
};
