import { dataTypesOf, millisecondTimestamp } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { binaryCollation } from '../../../stores/sql/migrations/resource-columns';

// Two-factor login (docs/accounts.md): one credential per user (the sealed TOTP secret, whether it is
// confirmed, the last time step used: replayed codes are refused by one conditional update), and the
// SHA-256 digests of unused recovery codes (compared exactly: the binary collation), found by user.
export const createMfa: SqlMigration = {
  name: '0010-create-mfa',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    const collation = await binaryCollation(queryInterface);
    const digestType = `${queryInterface.sequelize.getDialect() === 'mssql' ? 'NVARCHAR' : 'VARCHAR'}(64)${collation}`;
    await queryInterface.createTable(
      'mfa_credentials',
      {
        user_id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
        secret: { type: DataTypes.STRING(255), allowNull: false },
        confirmed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        last_step: { type: DataTypes.INTEGER, allowNull: true },
        created_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
        updated_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
      },
      { charset: 'utf8mb4' },
    );
    await queryInterface.createTable(
      'mfa_recovery_codes',
      {
        digest: { type: digestType, primaryKey: true, allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        created_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
      },
      { charset: 'utf8mb4' },
    );
    await queryInterface.addIndex('mfa_recovery_codes', ['user_id'], { name: 'mfa_recovery_codes_user' });
  },
  async down(queryInterface) {
    await queryInterface.dropTable('mfa_recovery_codes');
    await queryInterface.dropTable('mfa_credentials');
  },
  downDestroys: [{ table: 'mfa_recovery_codes' }, { table: 'mfa_credentials' }],
};
