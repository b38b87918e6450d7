import { createResourceTable, defineResource, field, listIndexColumns, resourceModule, type SqlMigration } from '../../src/modules/kit';

// The module the flood bench searches: bench/scale's notes with `?q=` on the title, as
//   npm run new:module -- notes title:string body:text? pinned:boolean --search title --sort title,createdAt
// would declare it (the title's search shadow `title_search` beside it).

const declaration = {
  fields: {
    title: field.string(),
    body: field.text({ optional: true }),
    pinned: field.boolean(),
  },
  sort: ['title', 'createdAt'] as const,
  search: ['title'] as const,
};

const createFloodNotes: SqlMigration = {
  name: 'bench-flood-notes-0001-create-notes',
  up: (queryInterface) =>
    createResourceTable(
      queryInterface,
      'notes',
      (c) => ({
        ...c.string('title', { search: true }),
        ...c.text('body', { optional: true }),
        ...c.boolean('pinned'),
      }),
      { indexes: listIndexColumns({ fields: declaration.fields, filters: [], sort: [...declaration.sort] }) },
    ),
  down: (queryInterface) => queryInterface.dropTable('notes'),
};

export const floodNotes = defineResource({ name: 'notes', table: 'notes', modelName: 'Note', ...declaration, migrations: [createFloodNotes] });

/** Mounted at /api/notes. */
export const floodNotesModule = resourceModule(floodNotes);
