import { MissingReferenceError, ReferencedRecordError, UniqueKeyError } from '../../src/stores/errors';
import { newId } from '../../src/stores/ids';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { DataTypes } from 'sequelize';
import { decodeCursor } from '../../src/stores/kit/cursor';
import { withTiebreak, type ListQuery } from '../../src/stores/kit/list-query';
import { addUniqueKey } from '../../src/stores/sql/migrations/unique-key';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { marks, notes, tags } from '../support/resource-fixtures';

// The module kit's stores on every engine, with the same cases and the same expected answers: one meaning
// of "equal" (case, trailing spaces, Unicode forms), code-point order, filters, keyset pages, unique keys,
// references and their on-delete rules, and a unique key refused on a table that breaks it.

const owner = () => `owner-${newId()}`;
const query = (partial: Partial<ListQuery> = {}): ListQuery => ({
  where: [],
  sort: [],
  limit: 100,
  offset: 0,
  ...partial,
});
/** Code-point order, as every engine must sort (JS compares UTF-16 units: the same below U+10000). */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const VARIANTS = ['dup', 'Dup', 'DUP', 'dup ', ' dup', 'é', 'e\u0301', 'Z', 'a', 'ä', 'ß', 'ss', 'İ', 'i', 'x\ty'];

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`resource kit on ${target.label}`, () => {
    // Only marks is listed: the stores it depends on (tags, then notes) are opened and migrated first.
    const databaseOf = useEngineDatabase(target, [resourceStore(marks)]).database;
    const open = () => ({
      notes: databaseOf().store(resourceStore(notes)),
      tags: databaseOf().store(resourceStore(tags)),
      marks: databaseOf().store(resourceStore(marks)),
    });

    it('keeps case, trailing-space and Unicode variants apart, finds each by itself and sorts them by code point', async () => {
      const ownerId = owner();
      for (const title of VARIANTS) await open().notes.create(ownerId, { title });
      for (const title of VARIANTS) {
        const found = await open().notes.list(
          { ownerId },
          query({ where: [{ field: 'title', comparison: 'eq', value: title }] }),
        );
        expect(found.items.map((item) => item.title)).toEqual([title]);
      }
      const sorted = await open().notes.list({ ownerId }, query({ sort: [{ field: 'title', descending: false }] }));
      expect(sorted.items.map((item) => item.title)).toEqual([...VARIANTS].sort(byCodePoint));
      const within = await open().notes.list(
        { ownerId },
        query({ where: [{ field: 'title', comparison: 'in', value: ['dup', 'ss'] }] }),
      );
      expect(within.items.map((item) => item.title).sort()).toEqual(['dup', 'ss']);
    });

    it('refuses a second record with the same unique key of one owner, naming it; other owners may', async () => {
      const ownerId = owner();
      const first = await open().notes.create(ownerId, { title: 'same' });
      await expect(open().notes.create(ownerId, { title: 'same' })).rejects.toEqual(new UniqueKeyError(['title']));
      await expect(open().notes.create(owner(), { title: 'same' })).resolves.toMatchObject({ title: 'same' });
      const second = await open().notes.create(ownerId, { title: 'other' });
      await expect(open().notes.update(second.id, { ownerId }, { title: 'same' })).rejects.toBeInstanceOf(
        UniqueKeyError,
      );
      await expect(open().notes.update(first.id, { ownerId }, { title: 'same' })).resolves.toMatchObject({
        title: 'same',
      });
    });

    it('compares a case-insensitive field without case (equality, filters, uniqueness) and answers it as given', async () => {
      const ownerId = owner();
      const created = await open().notes.create(ownerId, { title: 'ci-1', label: 'Work' });
      expect(created.label).toBe('Work');
      expect(created).not.toHaveProperty('labelFolded');
      await expect(open().notes.create(ownerId, { title: 'ci-2', label: 'wORK' })).rejects.toEqual(
        new UniqueKeyError(['label']),
      );
      await open().notes.create(ownerId, { title: 'ci-3' }); // empty labels never clash
      await open().notes.create(ownerId, { title: 'ci-4' });
      const found = await open().notes.list(
        { ownerId },
        query({ where: [{ field: 'label', comparison: 'eq', value: 'WORK' }] }),
      );
      expect(found.items.map((item) => item.id)).toEqual([created.id]);
    });

    it('filters by equality, ranges and emptiness, and counts the filtered list', async () => {
      const ownerId = owner();
      const base = Date.parse('2030-01-01T00:00:00.000Z');
      for (let rank = 1; rank <= 6; rank += 1) {
        await open().notes.create(ownerId, {
          title: `f${rank}`,
          rank,
          pinned: rank % 2 === 0,
          dueAt: rank > 4 ? null : new Date(base + rank * 1000),
        });
      }
      const titles = async (where: ListQuery['where']) =>
        (
          await open().notes.list({ ownerId }, query({ where, sort: [{ field: 'rank', descending: false }] }))
        ).items.map((item) => item.title);
      expect(await titles([{ field: 'pinned', comparison: 'eq', value: true }])).toEqual(['f2', 'f4', 'f6']);
      expect(
        await titles([
          { field: 'rank', comparison: 'gte', value: 2 },
          { field: 'rank', comparison: 'lt', value: 5 },
        ]),
      ).toEqual(['f2', 'f3', 'f4']);
      expect(await titles([{ field: 'dueAt', comparison: 'null', value: true }])).toEqual(['f5', 'f6']);
      expect(await titles([{ field: 'dueAt', comparison: 'gt', value: new Date(base + 2000) }])).toEqual(['f3', 'f4']);
      expect(await titles([{ field: 'rank', comparison: 'in', value: [1, 6] }])).toEqual(['f1', 'f6']);
      const page = await open().notes.list(
        { ownerId },
        query({ where: [{ field: 'dueAt', comparison: 'null', value: false }], limit: 1, countUpTo: 10 }),
      );
      expect(page).toMatchObject({ total: 4, totalCapped: false, limit: 1, offset: 0, nextCursor: expect.any(String) });
      // The count reads at most its limit and says when it stopped there.
      const capped = await open().notes.list(
        { ownerId },
        query({ where: [{ field: 'dueAt', comparison: 'null', value: false }], limit: 1, countUpTo: 3 }),
      );
      expect(capped).toMatchObject({ total: 3, totalCapped: true });
      expect(await open().notes.list({ ownerId }, query({ limit: 1 }))).not.toHaveProperty('total');
    });

    it('pages by cursor through a multi-key order with nulls first, the same records as one long page', async () => {
      const ownerId = owner();
      const dates = [
        null,
        '2030-01-01T00:00:00.001Z',
        null,
        '2030-01-01T00:00:00.001Z',
        '2029-12-31T23:59:59.999Z',
        null,
        '2030-06-01T00:00:00.000Z',
      ];
      for (const [index, due] of dates.entries())
        await open().notes.create(ownerId, { title: `k${index}`, dueAt: due ? new Date(due) : null, rank: index % 2 });
      for (const sort of [
        [{ field: 'dueAt', descending: false }],
        [
          { field: 'dueAt', descending: true },
          { field: 'rank', descending: false },
        ],
        [
          { field: 'rank', descending: true },
          { field: 'title', descending: false },
        ],
      ]) {
        const whole = (await open().notes.list({ ownerId }, query({ sort }))).items.map((item) => item.title);
        const paged: string[] = [];
        let after: unknown[] | undefined;
        for (let pages = 0; pages < 10; pages += 1) {
          const page = await open().notes.list({ ownerId }, query({ sort, limit: 2, after }));
          paged.push(...page.items.map((item) => item.title));
          if (!page.nextCursor) break;
          after = decodeCursor(page.nextCursor, withTiebreak(sort), (field) =>
            field === 'dueAt' || field === 'createdAt' ? 'datetime' : field === 'rank' ? 'integer' : 'string',
          );
        }
        expect(paged).toEqual(whole);
        expect(whole).toHaveLength(dates.length);
        const nullsFirst = sort[0]!.field === 'dueAt' && !sort[0]!.descending;
        if (nullsFirst) expect(whole.slice(0, 3).sort()).toEqual(['k0', 'k2', 'k5']);
      }
    });

    it("refuses a reference to no record, or to another owner's; a restricting one blocks the delete, a cascading one goes with it", async () => {
      const ownerId = owner();
      const note = await open().notes.create(ownerId, { title: 'referenced' });
      const foreign = await open().notes.create(owner(), { title: 'foreign' });
      await expect(open().tags.create(ownerId, { name: 't', note: foreign.id })).rejects.toEqual(
        new MissingReferenceError('note'),
      );
      await expect(open().tags.create(ownerId, { name: 't', note: newId() })).rejects.toEqual(
        new MissingReferenceError('note'),
      );
      const tag = await open().tags.create(ownerId, { name: 't', note: note.id });
      await expect(open().tags.create(ownerId, { name: 't', note: note.id })).rejects.toEqual(
        new UniqueKeyError(['note', 'name']),
      );
      const mark = await open().marks.create(ownerId, { colour: 'red', tag: tag.id });
      await expect(open().notes.delete(note.id, { ownerId })).rejects.toBeInstanceOf(ReferencedRecordError);
      expect(await open().notes.findById(note.id, { ownerId })).not.toBeNull();
      expect(await open().tags.delete(tag.id, { ownerId })).toBe(true);
      expect(await open().marks.findById(mark.id, {})).toBeNull();
      expect(await open().notes.delete(note.id, { ownerId })).toBe(true);
    });

    it('stops a migration that adds a unique key to a table holding duplicates, naming the table, the columns and a value', async () => {
      if (!('sequelize' in databaseOf())) return; // relational only
      const queryInterface = (databaseOf() as unknown as SqlDatabase).sequelize.getQueryInterface();
      const table = `kit_dups_${Date.now() % 100000}`;
      await queryInterface.createTable(table, {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        owner_id: DataTypes.STRING(64),
        title: DataTypes.STRING(50),
      });
      try {
        await queryInterface.bulkInsert(
          table,
          [1, 2, 3].map((n) => ({ id: `r${n}`, owner_id: 'o', title: n < 3 ? 'twice' : 'once' })),
        );
        await expect(addUniqueKey(queryInterface, table, ['title'])).rejects.toThrow(
          new RegExp(`unique key \\(owner_id, title\\) to table ${table}: 2 rows share owner_id="o", title="twice"`),
        );
      } finally {
        await queryInterface.dropTable(table);
      }
    });
  });
}
