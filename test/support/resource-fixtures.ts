import { createResourceTable, defineResource, field, listIndexColumns, type SqlMigration } from '../../src/modules/kit';

// Two resources as a team would generate them (`npm run new:module`), for the kit's own tests: notes, and
// tags that point at notes (restrict) and marks that point at tags (cascade).

const createNotes: SqlMigration = {
  name: 'kit-fixture-notes-0001-create',
  up: (queryInterface) =>
    createResourceTable(
      queryInterface,
      'kit_notes',
      (c) => ({
        ...c.string('title', { search: true }),
        ...c.text('body', { optional: true, search: true }),
        ...c.boolean('pinned', { optional: true }),
        ...c.datetime('due_at', { optional: true }),
        ...c.integer('rank', { optional: true }),
        ...c.string('label', { optional: true, caseInsensitive: true }),
        ...c.boolean('starred', { default: false }),
        ...c.string('status', { default: 'Open', caseInsensitive: true }),
        ...c.datetime('archived_at', { optional: true }),
      }),
      { unique: [['title'], ['label_folded']], indexes: listIndexColumns(notes) },
    ),
  down: (queryInterface) => queryInterface.dropTable('kit_notes'),
};

export const notes = defineResource({
  name: 'kit-notes',
  table: 'kit_notes',
  modelName: 'KitNote',
  fields: {
    title: field.string(),
    body: field.text({ optional: true }),
    pinned: field.boolean({ optional: true }),
    dueAt: field.datetime({ optional: true }),
    rank: field.integer({ optional: true }),
    label: field.string({ optional: true, caseInsensitive: true }),
    starred: field.boolean({ default: false }),
    status: field.string({ default: 'Open', caseInsensitive: true }),
    archivedAt: field.datetime({ optional: true, readOnly: true }),
  },
  unique: [['title'], ['label']],
  filters: ['title', 'pinned', 'dueAt', 'rank', 'label', 'createdAt'],
  sort: ['title', 'dueAt', 'rank', 'createdAt'],
  search: ['title', 'body'],
  actions: {
    archive: { access: 'owner-or-admin', set: { archivedAt: 'now' }, unless: 'archivedAt' },
    star: { set: { starred: true }, unless: 'starred' },
    reopen: { access: 'admin', set: { status: 'Open', archivedAt: null } },
  },
  migrations: [createNotes],
});

const createTags: SqlMigration = {
  name: 'kit-fixture-tags-0001-create',
  up: (queryInterface) => createResourceTable(queryInterface, 'kit_tags', (c) => ({ ...c.string('name'), ...c.reference('note', 'kit_notes') }), { unique: [['note', 'name']], indexes: listIndexColumns(tags) }),
  down: (queryInterface) => queryInterface.dropTable('kit_tags'),
};

export const tags = defineResource({
  name: 'kit-tags',
  table: 'kit_tags',
  modelName: 'KitTag',
  fields: { name: field.string(), note: field.reference(() => notes) },
  unique: [['note', 'name']],
  filters: ['note', 'name'],
  sort: ['name'],
  migrations: [createTags],
});

const createMarks: SqlMigration = {
  name: 'kit-fixture-marks-0001-create',
  up: (queryInterface) => createResourceTable(queryInterface, 'kit_marks', (c) => ({ ...c.string('colour'), ...c.reference('tag', 'kit_tags', { onDelete: 'cascade' }) }), { indexes: listIndexColumns(marks) }),
  down: (queryInterface) => queryInterface.dropTable('kit_marks'),
};

export const marks = defineResource({
  name: 'kit-marks',
  table: 'kit_marks',
  modelName: 'KitMark',
  fields: { colour: field.string(), tag: field.reference(() => tags, { onDelete: 'cascade' }) },
  migrations: [createMarks],
});
