import { resourceModule } from '../../src/modules/kit';
import type { AnyResource } from '../../src/stores/kit/resource';
import { describeResourceRoutes } from '../support/resource-http-contract';
import { describeResourceStore } from '../support/resource-store-contract';
import { marks, notes, tags, tickets as ruledTickets } from '../support/resource-fixtures';
import { labels, projects, ticketLabels, tickets } from '../support/tracker-fixtures';
import { bookings, bookingsModule, notices, rooms } from '../support/booking-fixtures';

// The kit's contract suites on its own fixtures: a resource with every field kind, unique keys and a
// case-insensitive field; one with a restricting reference and a composite key; one with a cascading one;
// one with rules on its fields (allowed values, ranges, a length, a pattern); a tracker's tickets with states,
// and the join of tickets and labels; a catalogue of rooms admins write, the bookings pointing at them, and
// notices anyone reads and editors write (the access policies).
const fixtures: AnyResource[] = [
  notes,
  tags,
  marks,
  ruledTickets,
  projects,
  tickets,
  labels,
  ticketLabels,
  rooms,
  bookings,
  notices,
];
for (const resource of fixtures) {
  describeResourceStore(resource);
  describeResourceRoutes(resource, resource === bookings ? bookingsModule : resourceModule(resource));
}
