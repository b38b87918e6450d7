import type { QueryInterface } from 'sequelize';

// The indexes of a table as Sequelize's showIndex lists them, in the kit's terms.

export interface IndexShape {
  name: string;
  columns: string[];
  unique: boolean;
}

interface ShownIndex {
  name: string;
  primary?: boolean;
  unique?: boolean;
  fields?: { attribute?: string }[];
}

/** The table's indexes, its primary key and SQLite's automatic ones left out. */
export async function indexesOf(queryInterface: QueryInterface, table: string): Promise<IndexShape[]> {
  const shown = (await queryInterface.showIndex(table)) as ShownIndex[];
  return shown
    .filter((index) => !index.primary && !index.name.startsWith('sqlite_autoindex_') && index.name !== 'PRIMARY')
    .map((index) => ({
      name: index.name,
      columns: (index.fields ?? []).map((field) => String(field.attribute)),
      unique: Boolean(index.unique),
    }));
}
