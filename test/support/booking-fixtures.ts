import {
  createResourceTable,
  defineResource,
  field,
  listIndexColumns,
  resourceModule,
  type SqlMigration,
} from '../../src/modules/kit';
import { shapeSamples } from './resource-samples';

// A room-booking service as a team would declare it: rooms, a catalogue every signed-in user reads and admins
// write; bookings, each user's own, pointing at a room, ending after they start (a check across fields), with
// no more attendees than the room holds (the module's own check of its writes); and notices, which anyone
// reads without a token and the role `editor` writes. For the access policies', the checks' and the hook's
// contract and their scenarios on every engine.

type Listed = Parameters<typeof listIndexColumns>[0];

const created = (
  table: string,
  resource: () => Listed,
  columns: Parameters<typeof createResourceTable>[2],
  unique?: string[][],
  checks?: string[],
): SqlMigration => ({
  name: `booking-fixture-${table}-0001-create`,
  up: (queryInterface) =>
    createResourceTable(queryInterface, table, columns, { indexes: listIndexColumns(resource()), unique, checks }),
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
  migrations: [
    created(
      'bk_rooms',
      (): Listed => rooms,
      (c) => ({ ...c.string('name'), ...c.integer('capacity', { minimum: 1, maximum: 500 }) }),
      [['name']],
    ),
  ],
});

export const bookings = defineResource({
  name: 'bk-bookings',
  table: 'bk_bookings',
  modelName: 'BkBooking',
  fields: {
    room: field.reference(() => rooms),
    startsAt: field.datetime(),
    endsAt: field.datetime(),
    attendees: field.integer({ minimum: 1, maximum: 500 }),
    status: field.string({ enum: ['requested', 'confirmed', 'cancelled'], default: 'requested' }),
    priority: field.string({ enum: ['low', 'normal', 'high'], default: 'normal' }),
  },
  checks: ['endsAt > startsAt'],
  actions: {
    confirm: { set: { status: 'confirmed' }, from: { status: ['requested'] } },
    cancel: { set: { status: 'cancelled' }, from: { status: ['requested', 'confirmed'] } },
    reopen: { set: { status: 'requested' }, from: { status: ['cancelled'] } },
  },
  migrations: [
    created(
      'bk_bookings',
      (): Listed => bookings,
      (c) => ({
        ...c.reference('room', 'bk_rooms'),
        ...c.datetime('starts_at'),
        ...c.datetime('ends_at'),
        ...c.integer('attendees', { minimum: 1, maximum: 500 }),
        ...c.string('status', { default: 'requested', enum: ['requested', 'confirmed', 'cancelled'] }),
        ...c.string('priority', { default: 'normal', enum: ['low', 'normal', 'high'] }),
      }),
      undefined,
      ['ends_at > starts_at'],
    ),
  ],
});

/** The bookings' module: no more attendees than the room holds, judged on every write (docs/modules.md, "A check of your own"). */
export const bookingsModule = resourceModule(bookings, {
  checkWrite: async ({ record, read }) => {
    const room = await read(rooms).findById(record.room);
    return room && record.attendees > room.capacity
      ? { attendees: `must be at most the room's capacity, ${room.capacity}` }
      : undefined;
  },
});

// Any room holds one attendee: the suites' bookings keep the module's check.
shapeSamples(bookings, { attendees: 1 });

export const notices = defineResource({
  name: 'bk-notices',
  table: 'bk_notices',
  modelName: 'BkNotice',
  fields: { text: field.string() },
  access: { read: 'public', write: 'role:editor' },
  migrations: [
    created(
      'bk_notices',
      (): Listed => notices,
      (c) => c.string('text'),
    ),
  ],
});
