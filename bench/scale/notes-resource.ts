import { createResourceTable, defineResource, field, resourceModule, type SqlMigration } from '../../src/modules/kit';

// The module `make bench-scale` measures: what
//   npm run new:module -- notes title:string body:text? pinned:boolean --filter pinned,title --sort title,createdAt
// writes (scripts/new-module/templates.ts), declared here so the bench needs no generated files in src/. Keep it
// in step with the generator: when the generator's migration changes (e.g. indexes derived from the declaration),
// this one changes the same way, so the bench measures what a generated module gets.

const createBenchNotes: SqlMigration = {
  name: 'bench-scale-notes-0001-create-notes',
  up: (queryInterface) =>
    createResourceTable(queryInterface, 'notes', (c) => ({
      ...c.string('title'),
      ...c.text('body', { optional: true }),
      ...c.boolean('pinned'),
    })),
  down: (queryInterface) => queryInterface.dropTable('notes'),
};

export const benchNotes = defineResource({
  name: 'notes',
  table: 'notes',
  modelName: 'Note',
  fields: {
    title: field.string(),
    body: field.text({ optional: true }),
    pinned: field.boolean(),
  },
  filters: ['pinned', 'title'],
  sort: ['title', 'createdAt'],
  migrations: [createBenchNotes],
});

/** Mounted at /api/notes, as the generated module would be. */
export const benchNotesModule = resourceModule(benchNotes);
