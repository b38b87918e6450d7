import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { addIndexIfMissing } from '../../../stores/sql/migrations/schema-steps';

// The users directory lists oldest first, then by id (GET /api/users): an index in that order, so a page
// is a range scan instead of a sort of the whole table.
export const addUsersCreatedAtIndex: SqlMigration = {
  name: '0005-users-created-at-index',
  async up(queryInterface) {
    await addIndexIfMissing(queryInterface, 'users', ['created_at', 'id'], 'users_created_at_id');
  },
  async down(queryInterface) {
    await queryInterface.removeIndex('users', 'users_created_at_id');
  },
};
