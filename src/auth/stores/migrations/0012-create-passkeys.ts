import type { QueryInterface } from 'sequelize';
import { dataTypesOf, millisecondTimestamp } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';

/**
 * Bytes on every engine, compared as bytes: BLOB on SQLite, BYTEA on PostgreSQL, VARBINARY on MySQL/MariaDB
 * and SQL Server. A credential id is at most 1023 bytes (WebAuthn Level 3), within every engine's index key.
 */
function bytes(queryInterface: QueryInterface, length: number | 'max'): string {
  switch (queryInterface.sequelize.getDialect()) {
    case 'postgres':
      return 'BYTEA';
    case 'sqlite':
      return 'BLOB';
    case 'mssql':
      return `VARBINARY(${length === 'max' ? 'MAX' : length})`;
    default:
      return length === 'max' ? 'BLOB' : `VARBINARY(${length})`;
  }
}

// Passkeys (docs/authentication.md): found by credential id at sign-in (unique: a credential belongs to one
// account), listed by user (oldest first) for the account page and the "last way in" check.
export const createPasskeys: SqlMigration = {
  name: '0012-create-passkeys',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    await queryInterface.createTable(
      'passkeys',
      {
        id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        credential_id: { type: bytes(queryInterface, 1023), allowNull: false },
        public_key: { type: bytes(queryInterface, 'max'), allowNull: false },
        counter: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        transports: { type: DataTypes.STRING(100), allowNull: false, defaultValue: '' },
        name: {
          type: `${queryInterface.sequelize.getDialect() === 'mssql' ? 'NVARCHAR' : 'VARCHAR'}(64)`,
          allowNull: false,
        },
        created_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
        last_used_at: { type: millisecondTimestamp(queryInterface), allowNull: true },
      },
      { charset: 'utf8mb4' },
    );
    await queryInterface.addIndex('passkeys', ['credential_id'], { name: 'passkeys_credential_id', unique: true });
    await queryInterface.addIndex('passkeys', ['user_id', 'created_at'], { name: 'passkeys_user_created' });
  },
  async down(queryInterface) {
    await queryInterface.dropTable('passkeys');
  },
  downDestroys: [{ table: 'passkeys' }],
};
