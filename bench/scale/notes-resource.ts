import {
  createResourceTable,
  defineResource,
  field,
  listIndexColumns,
  resourceModule,
  type SqlMigration,
} from '../../src/modules/kit';

// The module `make bench-scale` measures: what
//   npm run new:module -- notes title:string body:text? pinned:boolean --filter pinned,title --sort title,createdAt --search title,body
// writes (scripts/new-module/templates.ts), declared here so the bench needs no generated files in src/. A
// generated migration spells its list indexes out, frozen; this one derives them from the declaration at
// run time, as the generator does when it writes the file (createRecordTable already makes the
// owner's newest-first index), so the bench always measures what a module generated today gets.

const declaration = {
  fields: {
    title: field.string(),
    body: field.text({ optional: true }),
    pinned: field.boolean(),
  },
  filters: ['pinned', 'title'] as const,
  sort: ['title', 'createdAt'] as const,
  search: ['title', 'body'] as const,
};

const createBenchNotes: SqlMigration = {
  name: 'bench-scale-notes-0001-create-notes',
  up: (queryInterface) =>
    createResourceTable(
      queryInterface,
      'notes',
      (c) => ({
        ...c.string('title', { search: true }),
        ...c.text('body', { optional: true, search: true }),
        ...c.boolean('pinned'),
      }),
      {
        indexes: listIndexColumns({ ...declaration, filters: [...declaration.filters], sort: [...declaration.sort] }),
        searchPerOwner: true,
      },
    ),
  down: (queryInterface) => queryInterface.dropTable('notes'),
};

export const benchNotes = defineResource({
  name: 'notes',
  table: 'notes',
  modelName: 'Note',
  ...declaration,
  search: [...declaration.search],
  migrations: [createBenchNotes],
});

/** The search shadows the table holds (their trigram indexes are built after the seed, as the list indexes are). */
export const BENCH_SEARCH_SHADOWS = ['title_search', 'body_search'];

/** Mounted at /api/notes, as the generated module would be. */
export const benchNotesModule = resourceModule(benchNotes);
