import { referenceScope } from '../../src/stores/kit/access-policy';
import type { Fields } from '../../src/stores/kit/fields';
import {
  MissingReferenceError,
  ReferencedRecordError,
  RuleViolationError,
  UniqueKeyError,
} from '../../src/stores/errors';
import { allowedInWords, hasRules, rulesOf } from '../../src/stores/kit/field-rules';
import { newId } from '../../src/stores/ids';
import { decodeCursor } from '../../src/stores/kit/cursor';
import { builtInKind, withTiebreak, type ListQuery } from '../../src/stores/kit/list-query';
import { referrersOf, type AnyResource, type Resource } from '../../src/stores/kit/resource';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { useEngineDatabase } from './engine-database';
import { testEngines } from './engines';
import {
  changesFor,
  defaultedFields,
  sampleOf,
  SEARCH_CASES,
  SEARCH_VALUES,
  storeOf,
  valuesFor,
  type Values,
} from './resource-samples';
import { heldByDatabase, outsideValues } from './rule-samples';
import { keepingChecks } from './check-samples';
import { describeCheckStoreCases } from './resource-check-contract';
import { columnOf } from '../../src/stores/kit/fields';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import type { MongoDatabase } from '../../src/stores/mongo/mongo-database';

// The store contract of any resource, run on every engine with the same cases (what a generated module's
// test file calls, with its resource). Everything is derived from the declaration: fields, unique keys,
// filters, sort keys and references.

const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const owner = () => `owner-${newId()}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const query = (partial: Partial<ListQuery> = {}): ListQuery => ({
  where: [],
  sort: [],
  limit: 100,
  offset: 0,
  ...partial,
});
/** Code-point order (UTF-16 units agree below U+10000), null first: the order every engine must give. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const [x, y] = [a instanceof Date ? a.getTime() : a, b instanceof Date ? b.getTime() : b] as [
    number | string,
    number | string,
  ];
  return x < y ? -1 : x > y ? 1 : 0;
}

export function describeResourceStore(resource: AnyResource): void {
  const engines = testEngines();

  for (const target of engines) {
    (target.skipReason ? describe.skip : describe)(`${resource.name} store on ${target.label}`, () => {
      const referrers = referrersOf(resource).map((referrer) => resourceStore(referrer.resource));
      const databaseOf = useEngineDatabase(target, [resourceStore(resource), ...referrers]).database;
      const store = () => storeOf(databaseOf(), resource);
      const create = async (ownerId: string, overrides: Values = {}) =>
        store().create(
          ownerId,
          keepingChecks(
            resource,
            { ...(await valuesFor(databaseOf(), resource, ownerId)), ...overrides },
            new Set(Object.keys(overrides)),
          ) as never,
        );

      it('creates a record with a UUIDv7 id, its owner and millisecond timestamps, and reads it back', async () => {
        const ownerId = owner();
        const values = await valuesFor(databaseOf(), resource, ownerId);
        const created = await store().create(ownerId, values as never);
        expect(created).toMatchObject({ ...values, ownerId, id: expect.stringMatching(UUIDV7) });
        expect(created.updatedAt.getTime()).toBe(created.createdAt.getTime());
        expect(await store().findById(created.id, { ownerId })).toEqual(created);
      });

      it('gives a left-out field its default, and keeps other optional fields empty (null)', async () => {
        const ownerId = owner();
        const created = await store().create(
          ownerId,
          (await valuesFor(databaseOf(), resource, ownerId, true)) as never,
        );
        expect(await store().findById(created.id, {})).toEqual(created);
        for (const [name, definition] of Object.entries(resource.fields as Fields))
          if (definition.omittable) expect(created[name]).toEqual(definition.default ?? null);
      });

      if (defaultedFields(resource).length > 0) {
        it(`keeps a given value over the default of ${defaultedFields(resource)
          .map(([name]) => name)
          .join(', ')}`, async () => {
          const ownerId = owner();
          const values = await valuesFor(databaseOf(), resource, ownerId, true);
          const given = Object.fromEntries(defaultedFields(resource).map(([name]) => [name, sampleOf(resource, name)]));
          const created = await store().create(
            ownerId,
            keepingChecks(resource, { ...values, ...given }, new Set(Object.keys(given))) as never,
          );
          expect(created).toMatchObject(given);
          expect(await store().findById(created.id, { ownerId })).toEqual(created);
        });
      }

      // A searched field with rules cannot take the search cases' values (a pattern, an enum…).
      for (const name of (resource.search as string[]).filter((searched) => !hasRules(resource.fields[searched]!))) {
        it(`finds ?q= in ${name} as a substring ignoring case and accents, with % _ [ ! taken literally`, async () => {
          const ownerId = owner();
          const made = new Map<string, string>();
          for (const value of SEARCH_VALUES) made.set((await create(ownerId, { [name]: value })).id, value);
          await create(owner(), { [name]: 'ecole' }); // someone else's: never in the owner's list
          for (const { q, finds } of SEARCH_CASES) {
            const found = await store().list({ ownerId }, query({ search: q }));
            expect({ q, found: found.items.map((item) => made.get(item.id)).sort() }).toEqual({
              q,
              found: [...finds].sort(),
            });
          }
          // The shadow follows an update.
          const renamed = [...made].find(([, value]) => value === 'ecale')![0];
          await store().update(renamed, { ownerId }, { [name]: 'ÉCOLE 2' } as never);
          expect((await store().list({ ownerId }, query({ search: 'ecole' }))).items.map((item) => item.id)).toContain(
            renamed,
          );
          const paged = await store().list({ ownerId }, query({ search: 'ecole', limit: 2 }));
          expect(paged.items).toHaveLength(2);
          const rest = await store().list(
            { ownerId },
            query({ search: 'ecole', limit: 2, after: [paged.items[1]!.createdAt, paged.items[1]!.id] }),
          );
          expect(rest.items).toHaveLength(2);
        });
      }

      if (resource.search.length > 0) {
        const name = resource.search[0] as string;
        const order = withTiebreak([]);
        /** Every page of `q` by cursor, `limit` a page, at most `scanLimit` records examined by a page no index serves. */
        const pages = async (ownerId: string, q: string, limit: number, scanLimit: number) => {
          const seen: { ids: string[]; scanCapped?: boolean; nextCursor: string | null }[] = [];
          let after: unknown[] | undefined;
          do {
            const page = await store().list({ ownerId }, query({ search: q, limit, scanLimit, after }));
            seen.push({
              ids: page.items.map((item) => item.id),
              scanCapped: page.scanCapped,
              nextCursor: page.nextCursor,
            });
            after = page.nextCursor
              ? decodeCursor(
                  page.nextCursor,
                  order,
                  (field) => builtInKind(field) ?? (resource.fields as Fields)[field]?.kind,
                )
              : undefined;
          } while (after && seen.length < 50);
          return seen;
        };

        it(`walks a ?q= no index serves within the scan limit: short pages with a cursor, the same records in the same order`, async () => {
          const ownerId = owner();
          const made: string[] = [];
          for (let index = 0; index < 9; index += 1)
            made.push((await create(ownerId, { [name]: index % 3 === 0 ? `Éa ${index}` : `b ${index}` })).id);
          const matching = made.filter((_, index) => index % 3 === 0).reverse(); // newest first
          // `ea`, two characters, is walked on every engine (no trigram): 3 examined a page, so pages of 1 or none.
          const walked = await pages(ownerId, 'ea', 2, 3);
          expect(walked.flatMap((page) => page.ids)).toEqual(matching);
          expect(walked.length).toBeGreaterThanOrEqual(3);
          expect(walked.slice(0, -1).every((page) => page.ids.length <= 2 && page.nextCursor !== null)).toBe(true);
          expect(walked.some((page) => page.scanCapped === true && page.ids.length < 2)).toBe(true);
          // With room to examine every record, one page holds them all and says nothing more.
          expect(await pages(ownerId, 'ea', 10, 100)).toEqual([
            { ids: matching, scanCapped: undefined, nextCursor: null },
          ]);
          // An offset page skips matches, within the same bound.
          const skipped = await store().list({ ownerId }, query({ search: 'ea', limit: 1, offset: 1, scanLimit: 100 }));
          expect({ ids: skipped.items.map((item) => item.id), more: skipped.nextCursor !== null }).toEqual({
            ids: [matching[1]],
            more: true,
          });
          // A long term: the index where the engine has one (PostgreSQL), else the same walk; the same records either way.
          expect((await pages(ownerId, 'éa ', 2, 3)).flatMap((page) => page.ids)).toEqual(matching);
        });

        it('counts a walked ?q= within the scan limit, and says when it stopped', async () => {
          const ownerId = owner();
          for (let index = 0; index < 6; index += 1)
            await create(ownerId, { [name]: index % 2 === 0 ? `zq yes ${index}` : `nope ${index}` });
          const bounded = await store().list(
            { ownerId },
            query({ search: 'zq', limit: 1, scanLimit: 4, countUpTo: 100 }),
          );
          expect({ total: bounded.total, totalCapped: bounded.totalCapped }).toEqual({ total: 2, totalCapped: true });
          const whole = await store().list(
            { ownerId },
            query({ search: 'zq', limit: 1, scanLimit: 100, countUpTo: 100 }),
          );
          expect({ total: whole.total, totalCapped: whole.totalCapped }).toEqual({ total: 3, totalCapped: false });
        });
      }

      it("finds a record only in its owner's scope, or with no owner in the scope (admins)", async () => {
        const created = await create(owner());
        expect(await store().findById(created.id, { ownerId: owner() })).toBeNull();
        expect(await store().findById(created.id, {})).toEqual(created);
        expect(await store().findById(newId(), {})).toBeNull();
        expect(await store().findById('not-an-id', {})).toBeNull();
      });

      it('lists newest first, by offset or by cursor, with the total when asked', async () => {
        const ownerId = owner();
        const ids: string[] = [];
        for (let i = 0; i < 5; i += 1) ids.push((await create(ownerId)).id);
        const first = await store().list({ ownerId }, query({ limit: 2, countUpTo: 100 }));
        expect(first).toMatchObject({
          total: 5,
          totalCapped: false,
          limit: 2,
          offset: 0,
          nextCursor: expect.any(String),
        });
        expect(first.items.map((item) => item.id)).toEqual([ids[4], ids[3]]);
        const last = await store().list({ ownerId }, query({ limit: 2, offset: 4 }));
        expect(last.items.map((item) => item.id)).toEqual([ids[0]]);
        expect(last.nextCursor).toBeNull();
        const after = [first.items[1]!.createdAt, first.items[1]!.id];
        expect((await store().list({ ownerId }, query({ limit: 2, after }))).items.map((item) => item.id)).toEqual([
          ids[2],
          ids[1],
        ]);
      });

      it('filters by each declared filter and sorts by each declared key, as code-point order says', async () => {
        const ownerId = owner();
        const created = [];
        for (let i = 0; i < 4; i += 1) created.push(await create(ownerId));
        for (const name of resource.filters) {
          const value = created[2]![name];
          const found = await store().list({ ownerId }, query({ where: [{ field: name, comparison: 'eq', value }] }));
          expect(found.items.map((item) => item.id)).toContain(created[2]!.id);
          expect(found.items.every((item) => compare(item[name], value) === 0)).toBe(true);
        }
        for (const name of resource.sort) {
          for (const descending of [false, true]) {
            const listed = (await store().list({ ownerId }, query({ sort: [{ field: name, descending }] }))).items.map(
              (item) => item[name],
            );
            const expected = [...listed].sort((a, b) => (descending ? compare(b, a) : compare(a, b)));
            expect(listed).toEqual(expected);
          }
        }
      });

      // Past the store: the engine's CHECK constraint, or the collection's validator, alone judges the values
      // (a datetime as the text SQLite's rows hold, which its CHECK compares).
      const asColumn = (value: unknown) =>
        target.engine === 'sqlite' && value instanceof Date
          ? value.toISOString().replace('T', ' ').replace('Z', ' +00:00')
          : value;
      const writeStraight = (id: string, values: Values) =>
        target.engine === 'mongodb'
          ? (databaseOf() as MongoDatabase).connection
              .collection(resource.table)
              .updateOne({ _id: id as never }, { $set: values })
          : (databaseOf() as SqlDatabase)
              .queryInterface()
              .bulkUpdate(
                resource.table,
                Object.fromEntries(Object.entries(values).map(([name, value]) => [columnOf(name), asColumn(value)])),
                { id },
              );
      describeCheckStoreCases(resource, { store, create, owner, writeStraight });

      it('updates in scope only, refreshing updatedAt', async () => {
        const ownerId = owner();
        const created = await create(ownerId);
        await pause(5);
        const changes = await changesFor(databaseOf(), resource, ownerId);
        expect(await store().update(created.id, { ownerId: owner() }, changes as never)).toBeNull();
        const updated = await store().update(created.id, { ownerId }, changes as never);
        expect(updated).toMatchObject({ ...changes, id: created.id, ownerId, createdAt: created.createdAt });
        expect(updated!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
      });

      it('deletes in scope only; deleting again or an unknown id finds nothing', async () => {
        const ownerId = owner();
        const created = await create(ownerId);
        expect(await store().delete(created.id, { ownerId: owner() })).toBe(false);
        expect(await store().delete(created.id, { ownerId })).toBe(true);
        expect(await store().delete(created.id, { ownerId })).toBe(false);
        expect(await store().delete('not-an-id', {})).toBe(false);
      });

      for (const [name, definition] of Object.entries(resource.fields as Fields).filter(
        ([, field]) => hasRules(field) && !field.readOnly,
      )) {
        const held = outsideValues(definition).filter(({ rule }) => heldByDatabase(target.engine, rule));
        (held.length > 0 ? it : it.skip)(
          `has the database refuse ${name} outside its rules (${allowedInWords(rulesOf(definition))}), told as the field's rule`,
          async () => {
            const ownerId = owner();
            for (const { value } of held) {
              const refused = await create(ownerId, { [name]: value }).catch((error: unknown) => error);
              expect({ value, refused }).toEqual({
                value,
                refused: new RuleViolationError(name, `must be ${allowedInWords(rulesOf(definition))}`),
              });
            }
            const created = await create(ownerId);
            for (const { value } of held)
              await expect(store().update(created.id, { ownerId }, { [name]: value } as never)).rejects.toBeInstanceOf(
                RuleViolationError,
              );
            expect(await store().findById(created.id, { ownerId })).toEqual(created);
          },
        );
      }

      for (const key of resource.unique) {
        it(`refuses a second record of one owner with the same ${key.join(' and ')}, naming the key`, async () => {
          const ownerId = owner();
          const first = await create(ownerId);
          const same = Object.fromEntries(key.map((name) => [name, first[name]]));
          await expect(create(ownerId, same)).rejects.toEqual(new UniqueKeyError(key));
          if (!key.some((name) => resource.fields[name]!.kind === 'reference'))
            await expect(create(owner(), same)).resolves.toMatchObject(same);
        });
      }

      for (const [name, definition] of Object.entries(resource.fields as Fields).filter(
        ([, field]) => field.kind === 'reference',
      )) {
        const target = definition.references!.resource() as Resource;
        // A record only its owner reads is another owner's to point at; a catalogue's or a shared one's is anyone's.
        const private_ = target.access.read === 'owner';
        it(`refuses ${name} naming no record${private_ ? " or another owner's" : ''}, and applies its on-delete rule (${definition.references!.onDelete})`, async () => {
          const ownerId = owner();
          const foreign = await valuesFor(databaseOf(), resource, owner());
          if (private_)
            await expect(create(ownerId, { [name]: foreign[name] })).rejects.toEqual(new MissingReferenceError(name));
          else
            await expect(create(ownerId, { [name]: foreign[name] })).resolves.toMatchObject({ [name]: foreign[name] });
          await expect(create(ownerId, { [name]: newId() })).rejects.toEqual(new MissingReferenceError(name));
          const created = await create(ownerId);
          const targetStore = storeOf(databaseOf(), target);
          const targetScope = referenceScope(target.access, ownerId);
          if (definition.references!.onDelete === 'restrict') {
            await expect(targetStore.delete(String(created[name]), targetScope)).rejects.toBeInstanceOf(
              ReferencedRecordError,
            );
            expect(await store().findById(created.id, { ownerId })).not.toBeNull();
          } else {
            expect(await targetStore.delete(String(created[name]), targetScope)).toBe(true);
            expect(await store().findById(created.id, { ownerId })).toBeNull();
          }
        });
      }
    });
  }
}
