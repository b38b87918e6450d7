import type { ModelAttributeColumnOptions, QueryInterface } from 'sequelize';
import { dataTypesOf, millisecondTimestamp } from './column-types';
import { addIndexIfMissing } from './schema-steps';

/** The index every record table has from its creation: the owner's default list order (list-indexes.ts need not add it). */
export const OWNER_CREATED_INDEX = ['owner_id', 'created_at', 'id'] as const;

/**
 * Creates a table of owned records: `id` (UUIDv7 string, primary key), `owner_id`, the given columns, and
 * millisecond `created_at`/`updated_at`; indexed on (owner_id, created_at, id) for the owner's
 * newest-first list. utf8mb4 on MySQL/MariaDB (the other dialects ignore the option).
 */
export async function createRecordTable(
  queryInterface: QueryInterface,
  table: string,
  columns: Record<string, ModelAttributeColumnOptions>,
): Promise<void> {
  const DataTypes = dataTypesOf(queryInterface); // not imported: the kit is loaded on every engine
  await queryInterface.createTable(
    table,
    {
      id: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
      owner_id: { type: DataTypes.STRING(64), allowNull: false },
      ...columns,
      created_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
      updated_at: { type: millisecondTimestamp(queryInterface), allowNull: false },
    },
    { charset: 'utf8mb4' },
  );
  // The owner's list order, tiebreak included (newest first, then id): a page is a range of this index.
  // If missing: on MySQL/MariaDB (DDL not transactional) a migration that failed after this is run again.
  await addIndexIfMissing(queryInterface, table, [...OWNER_CREATED_INDEX], `${table}_owner_created`);
}
