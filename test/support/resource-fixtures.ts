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
      { unique: [['title'], ['label_folded']], indexes: listIndexColumns(notes), searchPerOwner: true },
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
  up: (queryInterface) =>
    createResourceTable(
      queryInterface,
      'kit_tags',
      (c) => ({ ...c.string('name'), ...c.reference('note', 'kit_notes') }),
      { unique: [['note', 'name']], indexes: listIndexColumns(tags) },
    ),
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
  up: (queryInterface) =>
    createResourceTable(
      queryInterface,
      'kit_marks',
      (c) => ({ ...c.string('colour'), ...c.reference('tag', 'kit_tags', { onDelete: 'cascade' }) }),
      { indexes: listIndexColumns(marks) },
    ),
  down: (queryInterface) => queryInterface.dropTable('kit_marks'),
};

export const marks = defineResource({
  name: 'kit-marks',
  table: 'kit_marks',
  modelName: 'KitMark',
  fields: { colour: field.string(), tag: field.reference(() => tags, { onDelete: 'cascade' }) },
  migrations: [createMarks],
});

const createTickets: SqlMigration = {
  name: 'kit-fixture-tickets-0001-create',
  up: (queryInterface) =>
    createResourceTable(
      queryInterface,
      'kit_tickets',
      (c) => ({
        ...c.string('title', { search: true }),
        ...c.string('status', { enum: ['open', 'in_progress', 'closed'], default: 'open' }),
        ...c.integer('priority', { minimum: 1, maximum: 5, default: 3 }),
        ...c.number('score', { optional: true, minimum: 0, maximum: 100 }),
        ...c.string('code', { optional: true, minLength: 3, pattern: '^[A-Z]{3}-\\d{2,4}$' }),
      }),
      { unique: [['code']], indexes: listIndexColumns(tickets), searchPerOwner: true },
    ),
  down: (queryInterface) => queryInterface.dropTable('kit_tickets'),
};

/** A resource with rules on its fields (allowed values, ranges, a length and a pattern), as `new:module` writes one from `status:enum:…`, `priority:integer:1..5`. */
export const tickets = defineResource({
  name: 'kit-tickets',
  table: 'kit_tickets',
  modelName: 'KitTicket',
  fields: {
    title: field.string(),
    status: field.string({ enum: ['open', 'in_progress', 'closed'], default: 'open' }),
    priority: field.integer({ minimum: 1, maximum: 5, default: 3 }),
    score: field.number({ optional: true, minimum: 0, maximum: 100 }),
    code: field.string({ optional: true, minLength: 3, pattern: '^[A-Z]{3}-\\d{2,4}$' }),
  },
  unique: [['code']],
  filters: ['status', 'priority', 'score'],
  sort: ['priority', 'createdAt'],
  search: ['title'],
  migrations: [createTickets],
});
