import { readFileSync } from 'node:fs';
import path from 'node:path';

// The capacity check docs/modules.md shows ("A check of your own") is the one the booking fixtures run, word for
// word but for the resources' names: what the docs promise is what test/http/catalogues.test.ts exercises.

const root = path.resolve(__dirname, '../..');
const body = (text: string, from: string) => {
  const start = text.indexOf('checkWrite: async');
  if (start < 0) throw new Error(`${from} has no checkWrite`);
  return text.slice(start, text.indexOf('\n  },', start)).replace(/\s+/g, ' ');
};

describe("the docs' write check", () => {
  it('is the fixtures’ capacity check', () => {
    const docs = body(readFileSync(path.join(root, 'docs/modules.md'), 'utf8'), 'docs/modules.md');
    const fixture = body(
      readFileSync(path.join(root, 'test/support/booking-fixtures.ts'), 'utf8'),
      'booking-fixtures.ts',
    );
    expect(docs.replace('read(roomsResource)', 'read(rooms)')).toBe(fixture);
  });
});
