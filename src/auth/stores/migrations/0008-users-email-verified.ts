import { dataTypesOf } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { addColumnIfMissing } from '../../../stores/sql/migrations/schema-steps';
import { dropFieldColumn } from '../../../stores/sql/migrations/field-rename-drop';

// Whether a user's address is proven (EMAIL_VERIFICATION, docs/accounts.md). New rows start unverified unless
// the service says otherwise; the users that exist when this runs were made before verification existed
// (by an administrator, or registered without it) and are marked verified, so turning EMAIL_VERIFICATION=required
// on later does not lock them out.
export const addUsersEmailVerified: SqlMigration = {
  name: '0008-users-email-verified',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    // Both steps may run twice (MySQL DDL is not transactional): the service serves nobody before migrations end.
    await addColumnIfMissing(queryInterface, 'users', 'email_verified', {
      type: DataTypes.BOOLEAN,
      allowNull: false,
      defaultValue: false,
    });
    await queryInterface.bulkUpdate('users', { email_verified: true }, {});
  },
  async down(queryInterface) {
    await dropFieldColumn(queryInterface, 'users', 'email_verified'); // not removeColumn: on SQLite that rebuilds the table without its indexes
  },
  downDestroys: [{ table: 'users', column: 'email_verified' }],
};
