import { dataTypesOf, millisecondTimestamp } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { binaryCollation } from '../../../stores/sql/migrations/resource-columns';

// Identities at OpenID Connect providers linked to local users (docs/authentication.md). The primary key
// is (issuer, subject), compared exactly (the binary collation: a subject differing only in case is another
// end-user); both are ASCII by the spec, so VARCHAR on every engine keeps the key within SQL Server's 900
// bytes. Found by user for GET /api/users/me, unlinking and deleting a user.
export const createLinkedIdentities: SqlMigration = {
  name: '0011-create-linked-identities',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    const collation = await binaryCollation(queryInterface);
    const key = `VARCHAR(255)${collation}`;
    await queryInterface.createTable(
      'linked_identities',
      {
        issuer: { type: key, primaryKey: true, allowNull: false },
        subject: { type: key, primaryKey: true, allowNull: false },
        user_id: { type: DataTypes.STRING(36), allowNull: false },
        provider: { type: DataTypes.STRING(64), allowNull: false },
        created_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
      },
      { charset: 'utf8mb4' },
    );
    await queryInterface.addIndex('linked_identities', ['user_id'], { name: 'linked_identities_user' });
  },
  async down(queryInterface) {
    await queryInterface.dropTable('linked_identities');
  },
  downDestroys: [{ table: 'linked_identities' }],
};
