import { dataTypesOf } from '../../../stores/sql/migrations/column-types';
import type { SqlMigration } from '../../../stores/sql/migrations/migration';
import { addColumnIfMissing } from '../../../stores/sql/migrations/schema-steps';
import { dropFieldColumn } from '../../../stores/sql/migrations/field-rename-drop';

// The per-user session version (src/auth/caller-states.ts): raised when every session must end, and
// compared with the version an access token carries. Existing users start at 0, as do tokens issued
// before this migration (they carry no version), so an upgrade ends nobody's session.
export const addUserSessionVersion: SqlMigration = {
  name: '0004-user-session-version',
  async up(queryInterface) {
    const DataTypes = dataTypesOf(queryInterface);
    await addColumnIfMissing(queryInterface, 'users', 'session_version', {
      type: DataTypes.INTEGER,
      allowNull: false,
      defaultValue: 0,
    });
  },
  async down(queryInterface) {
    await dropFieldColumn(queryInterface, 'users', 'session_version'); // not removeColumn: on SQLite that rebuilds the table without its indexes
  },
  downDestroys: [{ table: 'users', column: 'session_version' }],
};
