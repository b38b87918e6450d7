import { createResourceTable, defineResource, field, listIndexColumns, type SqlMigration } from '../../src/modules/kit';

// A room-booking service as a team would declare it: rooms, a catalogue every signed-in user reads and admins
// write; bookings, each user's own, pointing at a room; and notices, which anyone reads without a token and the
// role `editor` writes. For the access policies' contract and their scenario on every engine.

type Listed = Parameters<typeof listIndexColumns>[0];

const created = (table: string, resource: () => Listed, columns: Parameters<typeof createResourceTable>[2], unique?: string[][]): SqlMigration => ({
  name: `booking-fixture-${table}-0001-create`,
  up: (queryInterface) => createResourceTable(queryInterface, table, columns, { indexes: listIndexColumns(resource()), unique }),
  down: (queryInterface) => queryInterface.dropTable(table),
});

export const rooms = defineResource({
  name: 'bk-rooms',
  table: 'bk_rooms',
  modelName: 'BkRoom',
  fields: { name: field.string(), capacity: field.integer({ minimum: 1, maximum: 500 }) },
  unique: [['name']],
  filters: ['capacity'],
  sort: ['name'],
  access: { read: 'authenticated', write: 'admin' },
  migrations: [created('bk_rooms', (): Listed => rooms, (c) => ({ ...c.string('name'), ...c.integer('capacity', { minimum: 1, maximum: 500 }) }), [['name']])],
});

export const bookings = defineResource({
  name: 'bk-bookings',
  table: 'bk_bookings',
  modelName: 'BkBooking',
  fields: {
    room: field.reference(() => rooms),
    startsAt: field.datetime(),
    status: field.string({ enum: ['requested', 'confirmed', 'cancelled'], default: 'requested' }),
  },
  actions: { confirm: { set: { status: 'confirmed' }, from: { status: ['requested'] } } },
  migrations: [
    created('bk_bookings', (): Listed => bookings, (c) => ({
      ...c.reference('room', 'bk_rooms'),
      ...c.datetime('starts_at'),
      ...c.string('status', { default: 'requested', enum: ['requested', 'confirmed', 'cancelled'] }),
    })),
  ],
});

export const notices = defineResource({
  name: 'bk-notices',
  table: 'bk_notices',
  modelName: 'BkNotice',
  fields: { text: field.string() },
  access: { read: 'public', write: 'role:editor' },
  migrations: [created('bk_notices', (): Listed => notices, (c) => c.string('text'))],
});
