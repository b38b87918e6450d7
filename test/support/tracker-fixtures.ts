import { createResourceTable, defineResource, field, listIndexColumns, type SqlMigration } from '../../src/modules/kit';

// A small issue tracker as a team would declare it: projects, tickets in a project whose status the close,
// start and reopen actions govern (from the states each starts from), labels, and ticket-labels joining
// tickets to labels. For the states, includes and admin-owner tests on every engine.

type Listed = Parameters<typeof listIndexColumns>[0];

const created = (
  table: string,
  resource: () => Listed,
  columns: Parameters<typeof createResourceTable>[2],
): SqlMigration => ({
  name: `tracker-fixture-${table}-0001-create`,
  up: (queryInterface) =>
    createResourceTable(queryInterface, table, columns, { indexes: listIndexColumns(resource()) }),
  down: (queryInterface) => queryInterface.dropTable(table),
});

export const projects = defineResource({
  name: 'tr-projects',
  table: 'tr_projects',
  modelName: 'TrProject',
  fields: { name: field.string() },
  migrations: [
    created(
      'tr_projects',
      (): Listed => projects,
      (c) => c.string('name'),
    ),
  ],
});

export const tickets = defineResource({
  name: 'tr-tickets',
  table: 'tr_tickets',
  modelName: 'TrTicket',
  fields: {
    title: field.string(),
    status: field.string({ default: 'open' }),
    closedAt: field.datetime({ optional: true }),
    project: field.reference(() => projects, { optional: true, onDelete: 'cascade' }),
  },
  filters: ['status'],
  actions: {
    start: { set: { status: 'in_progress' }, from: { status: ['open'] } },
    close: { set: { status: 'closed', closedAt: 'now' }, from: { status: ['open', 'in_progress'] } },
    reopen: { set: { status: 'open', closedAt: null }, from: { status: ['closed'] } },
  },
  migrations: [
    created(
      'tr_tickets',
      (): Listed => tickets,
      (c) => ({
        ...c.string('title'),
        ...c.string('status', { default: 'open' }),
        ...c.datetime('closed_at', { optional: true }),
        ...c.reference('project', 'tr_projects', { optional: true, onDelete: 'cascade' }),
      }),
    ),
  ],
});

export const labels = defineResource({
  name: 'tr-labels',
  table: 'tr_labels',
  modelName: 'TrLabel',
  fields: { name: field.string() },
  migrations: [
    created(
      'tr_labels',
      (): Listed => labels,
      (c) => c.string('name'),
    ),
  ],
});

export const ticketLabels = defineResource({
  name: 'tr-ticket-labels',
  table: 'tr_ticket_labels',
  modelName: 'TrTicketLabel',
  fields: {
    ticket: field.reference(() => tickets, { onDelete: 'cascade' }),
    label: field.reference(() => labels, { onDelete: 'cascade' }),
  },
  unique: [['ticket', 'label']],
  migrations: [
    {
      name: 'tracker-fixture-tr_ticket_labels-0001-create',
      up: (queryInterface): Promise<void> =>
        createResourceTable(
          queryInterface,
          'tr_ticket_labels',
          (c) => ({
            ...c.reference('ticket', 'tr_tickets', { onDelete: 'cascade' }),
            ...c.reference('label', 'tr_labels', { onDelete: 'cascade' }),
          }),
          {
            unique: [['ticket', 'label']],
            indexes: listIndexColumns(ticketLabels as Listed),
          },
        ),
      down: (queryInterface) => queryInterface.dropTable('tr_ticket_labels'),
    },
  ],
});
