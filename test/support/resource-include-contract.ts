import type request from 'supertest';
import { resourceModule } from '../../src/modules/resource-module';
import type { ModuleFactory } from '../../src/services';
import type { Fields } from '../../src/stores/kit/fields';
import { includesOf } from '../../src/stores/kit/includes';
import { referrersOf, type AnyResource, type Resource } from '../../src/stores/kit/resource';
import type { Database } from '../../src/stores/types';
import { referenceScope } from '../../src/stores/kit/access-policy';
import { ownerOf, storeOf, valuesFor } from './resource-samples';

// The `?include=` contract of a resource, from its declaration (src/stores/kit/includes.ts): each reference
// forward and each resource linked through a mounted join module, on the list and on single reads, at one
// store call per include per page (two for a join: the links, then the records), and a 422 naming the
// allowed values for anything else. A join module not mounted with the resource offers no include.

export interface IncludeCaseContext {
  http: () => ReturnType<typeof request>;
  as: (who: string) => string;
  create: (who: string) => Promise<Record<string, unknown>>;
  database: () => Database;
  ownerId: (who: string) => string;
}

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/** The two resources a join resource links (none for any other resource): their reads include each other through it. */
function joined(resource: Resource): Resource[] {
  const references = Object.values(resource.fields as Fields).filter((definition) => definition.kind === 'reference');
  return references.length === 2 ? references.map((definition) => definition.references!.resource() as Resource) : [];
}

/**
 * The modules mounted beside the resource's own for these cases (the kit's module of each): the join
 * resources declared against it, and for a join resource the two it links, so both sides' includes answer.
 */
export function relatedModules(resource: AnyResource): ModuleFactory[] {
  const plain = resource as Resource;
  const joins = referrersOf(plain)
    .map((referrer) => referrer.resource)
    .filter((join) => joined(join).length === 2 && join.name !== plain.name);
  return [...new Set([...joins, ...joined(plain)])]
    .filter((other) => other.name !== plain.name)
    .map((other) => resourceModule(other));
}

export function describeIncludeCases(
  resource: AnyResource,
  path: string,
  { http, as, create, database, ownerId }: IncludeCaseContext,
): void {
  const plain = resource as Resource;
  const mounted = (join: Resource) => {
    try {
      storeOf(database(), join);
      return true;
    } catch {
      return false;
    }
  };

  it('?include= on the list and on /:id: each reference, each join (an array), one store call per include per page; others 422 naming the allowed', async () => {
    const includes = includesOf(plain, mounted);
    const refused = await http().get(`${path}?include=nothing`).set('Authorization', as('dave')).expect(422);
    const allowed = includes.map((include) => include.name).join(', ');
    expect(refused.body.errors).toEqual([
      includes.length > 0
        ? { field: 'query.include', message: `'nothing' cannot be included: allowed are ${allowed}` }
        : expect.objectContaining({ field: 'query.include' }),
    ]);
    if (includes.length === 0) return;
    const owner = ownerId('dave');
    // The joins' targets first: making one may make records of this resource (a target that has many of them
    // points at one), which must not push the three below off the page.
    const linked = new Map<string, Record<string, unknown>[]>();
    for (const include of includes) {
      if (include.kind !== 'join') continue;
      const targetOwner = ownerOf(include.target, owner);
      const make = async () =>
        storeOf(database(), include.target).create(
          targetOwner,
          (await valuesFor(database(), include.target, targetOwner, true)) as never,
        );
      linked.set(include.name, [await make(), await make()]);
    }
    const records = [await create('dave'), await create('dave'), await create('dave')];
    for (const include of includes) {
      if (include.kind !== 'join') continue;
      // Two links on the newest record, none on the others; the link makes no other record.
      for (const target of linked.get(include.name)!) {
        const link = await valuesFor(database(), include.join, ownerOf(include.join, owner), true, {
          [include.from]: records[2]!.id,
          [include.to]: target.id,
        });
        await storeOf(database(), include.join).create(ownerOf(include.join, owner), link as never);
      }
    }
    const expected = async (record: Record<string, unknown>) =>
      Object.fromEntries(
        await Promise.all(
          includes.map(async (include) => {
            if (include.kind === 'join')
              return [include.name, record.id === records[2]!.id ? json(linked.get(include.name)) : []];
            const found =
              typeof record[include.name] === 'string'
                ? await storeOf(database(), include.target).findById(
                    record[include.name] as string,
                    referenceScope(include.target.access, owner),
                  )
                : null;
            return [include.name, json(found)];
          }),
        ),
      );
    const stores = [
      ...new Set(
        includes
          .flatMap((include) => (include.kind === 'join' ? [include.join, include.target] : [include.target]))
          .map((target) => storeOf(database(), target)),
      ),
    ];
    const calls = stores.map((store) => jest.spyOn(store, 'list'));
    try {
      const names = includes.map((include) => include.name).join(',');
      const page = await http().get(`${path}?include=${names}&limit=3`).set('Authorization', as('dave')).expect(200);
      const perStore = (store: unknown) =>
        includes
          .flatMap((include) => (include.kind === 'join' ? [include.join, include.target] : [include.target]))
          .filter((target) => storeOf(database(), target) === store).length;
      expect(calls.map((call) => call.mock.calls.length)).toEqual(stores.map(perStore));
      for (const item of page.body.data.items)
        expect({ id: item.id, included: item.included }).toEqual({ id: item.id, included: await expected(item) });
      for (const record of records) {
        const one = await http()
          .get(`${path}/${String(record.id)}?include=${names}`)
          .set('Authorization', as('dave'))
          .expect(200);
        expect(one.body.data.included).toEqual(await expected(record));
      }
    } finally {
      for (const call of calls) call.mockRestore();
    }
    const plainPage = await http().get(`${path}?limit=1`).set('Authorization', as('dave')).expect(200);
    expect(plainPage.body.data.items[0]).not.toHaveProperty('included');
    await http()
      .get(`${path}/${String(records[0]!.id)}?include=nothing`)
      .set('Authorization', as('dave'))
      .expect(422);
  });

  const sides = joined(plain);
  (sides.length === 2 && sides[0]!.name !== sides[1]!.name ? it : it.skip)(
    'links the two resources it joins: each side includes the other on /:id',
    async () => {
      const link = await create('dave');
      for (const [index, side] of sides.entries()) {
        const other = sides[1 - index]!;
        const [from, to] = Object.entries(plain.fields as Fields)
          .filter(([, definition]) => definition.kind === 'reference')
          .map(([name]) => name);
        const [mine, theirs] = index === 0 ? [from!, to!] : [to!, from!];
        const read = await http()
          .get(`/api/${side.name}/${String(link[mine])}?include=${other.name}`)
          .set('Authorization', as('dave'))
          .expect(200);
        expect(read.body.data.included[other.name]).toEqual([
          json(
            await storeOf(database(), other).findById(
              link[theirs] as string,
              referenceScope(other.access, ownerId('dave')),
            ),
          ),
        ]);
      }
    },
  );
}
