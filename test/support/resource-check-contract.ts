import type request from 'supertest';
import { RuleViolationError } from '../../src/stores/errors';
import { checkInWords, checksOf, keepsCheck, mirrored, type FieldCheck } from '../../src/stores/kit/field-checks';
import type { Fields } from '../../src/stores/kit/fields';
import { keepsRules, rulesOf } from '../../src/stores/kit/field-rules';
import type { AnyResource } from '../../src/stores/kit/resource';
import type { ResourceStore } from '../../src/stores/kit/resource-store';
import { justOutside, shifted } from './check-samples';
import { asJson, bodyless, type Values } from './resource-samples';

// The contract of a resource's checks across fields (src/stores/kit/field-checks.ts), from the declaration
// alone: each side written just outside the check, on create and alone on update, is refused naming that
// side; an empty optional side leaves nothing to compare; the database itself refuses a row breaking it;
// the document states it.

/** The checks whose both sides a request body may write. */
function writableChecks(resource: AnyResource): FieldCheck[] {
  const left = bodyless(resource);
  return checksOf(resource).filter((check) => !left.has(check.left) && !left.has(check.right));
}

/**
 * For an order check (`<`, `<=`, `>`, `>=`): a record that keeps it with room, and two changes each keeping it
 * alone but breaking it together (the upper side moved down past where the lower side is moved up).
 */
export function racingChanges(
  check: FieldCheck,
  fields: Fields,
  base: unknown,
): { record: Values; changes: [Values, Values] } | undefined {
  if (!['<', '<=', '>', '>='].includes(check.operator)) return undefined;
  const upper = check.operator.startsWith('>') ? check : mirrored(check); // upper > (or >=) lower
  const [high, low] = [upper.left, upper.right];
  // From the base, or three steps below it where the fields' rules leave no room above.
  for (const start of [0, -3]) {
    const at = (steps: number) => shifted(fields[low]!, base, start + steps);
    const kept = [0, 1, 2, 3].every(
      (steps) => keepsRules(rulesOf(fields[low]!), at(steps)) && keepsRules(rulesOf(fields[high]!), at(steps)),
    );
    if (kept) return { record: { [low]: at(0), [high]: at(3) }, changes: [{ [low]: at(2) }, { [high]: at(1) }] };
  }
  return undefined;
}

export interface CheckStoreContext {
  store: () => ResourceStore<Fields>;
  create: (ownerId: string, overrides?: Values) => Promise<Record<string, unknown>>;
  owner: () => string;
  /** Writes the values straight into the record's row or document, past the store (the engine alone judges). */
  writeStraight: (id: string, values: Values) => Promise<unknown>;
}

export function describeCheckStoreCases(
  resource: AnyResource,
  { store, create, owner, writeStraight }: CheckStoreContext,
): void {
  const fields = resource.fields as Fields;
  for (const check of writableChecks(resource)) {
    const refusal = (side: FieldCheck) => new RuleViolationError(side.left, checkInWords(side, fields));
    it(`keeps ${check.text}: either side just outside it is refused naming that side, on create and alone on update`, async () => {
      const ownerId = owner();
      const created = await create(ownerId);
      await expect(
        create(ownerId, {
          [check.left]: justOutside(check, fields[check.left]!, created[check.right]),
          [check.right]: created[check.right],
        }),
      ).rejects.toEqual(refusal(check));
      for (const side of [check, mirrored(check)]) {
        await expect(
          store().update(String(created.id), { ownerId }, {
            [side.left]: justOutside(side, fields[side.left]!, created[side.right]),
          } as never),
        ).rejects.toEqual(refusal(side));
      }
      expect(await store().findById(String(created.id), { ownerId })).toEqual(created);
      for (const side of [check, mirrored(check)].filter((candidate) => fields[candidate.left]!.optional)) {
        await expect(
          store().update(String(created.id), { ownerId }, { [side.left]: null } as never),
        ).resolves.toMatchObject({ [side.left]: null });
      }
    });

    const racing = racingChanges(check, fields, 0);
    (racing ? it : it.skip)(
      `never stores a record breaking ${check.text} from two racing updates each keeping it alone`,
      async () => {
        const ownerId = owner();
        for (let round = 0; round < 5; round += 1) {
          const created = await create(ownerId);
          const { record, changes } = racingChanges(check, fields, created[check.right]) ?? racing!;
          await store().update(String(created.id), { ownerId }, record as never);
          const settled = await Promise.allSettled(
            changes.map((change) => store().update(String(created.id), { ownerId }, change as never)),
          );
          expect(settled.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
          expect(settled.find((outcome) => outcome.status === 'rejected')).toMatchObject({
            reason: expect.any(RuleViolationError),
          });
          const stored = (await store().findById(String(created.id), { ownerId }))!;
          expect(keepsCheck(check, stored)).toBe(true);
        }
      },
    );

    it(`has the database refuse a row breaking ${check.text}, written straight into it`, async () => {
      const created = await create(owner());
      await expect(
        writeStraight(String(created.id), {
          [check.left]: justOutside(check, fields[check.left]!, created[check.right]),
        }),
      ).rejects.toThrow();
      expect(await store().findById(String(created.id), {})).toEqual(created);
    });
  }
}

export interface CheckRouteContext {
  http: () => ReturnType<typeof request>;
  as: (who: string) => string;
  create: (who: string, overrides?: Values) => Promise<Record<string, unknown>>;
  body: (who: string) => Promise<Values>;
}

export function describeCheckRouteCases(
  resource: AnyResource,
  path: string,
  { http, as, create, body }: CheckRouteContext,
): void {
  const fields = resource.fields as Fields;
  for (const check of writableChecks(resource)) {
    it(`refuses a POST and a one-sided PATCH just outside ${check.text} (422 naming the side sent), racing PATCHes never store one, the document states it`, async () => {
      const sent = await body('alice');
      const outside = asJson({ value: justOutside(check, fields[check.left]!, sent[check.right]) }).value;
      const posted = await http()
        .post(path)
        .set('Authorization', as('alice'))
        .send({ ...sent, [check.left]: outside })
        .expect(422);
      expect(posted.body.errors).toEqual([{ field: check.left, message: checkInWords(check, fields) }]);
      const created = await create('alice');
      for (const side of [check, mirrored(check)]) {
        const value = asJson({ value: justOutside(side, fields[side.left]!, created[side.right]) }).value;
        const patched = await http()
          .patch(`${path}/${String(created.id)}`)
          .set('Authorization', as('alice'))
          .send({ [side.left]: value })
          .expect(422);
        expect(patched.body.errors).toEqual([{ field: side.left, message: checkInWords(side, fields) }]);
      }
      expect(
        (
          await http()
            .get(`${path}/${String(created.id)}`)
            .set('Authorization', as('alice'))
            .expect(200)
        ).body.data,
      ).toEqual(created);
      const racing = racingChanges(check, fields, created[check.right]);
      for (let round = 0; racing && round < 5; round += 1) {
        const record = await create('alice', asJson(racing.record));
        const answers = await Promise.all(
          racing.changes.map((change) =>
            http()
              .patch(`${path}/${String(record.id)}`)
              .set('Authorization', as('alice'))
              .send(asJson(change)),
          ),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422]);
        const stored = (
          await http()
            .get(`${path}/${String(record.id)}`)
            .set('Authorization', as('alice'))
            .expect(200)
        ).body.data;
        expect(keepsCheck(check, stored)).toBe(true);
      }
      const document = await http().get('/openapi.json').expect(200);
      for (const method of ['post', 'patch'])
        expect(JSON.stringify(document.body.paths[method === 'post' ? path : `${path}/{id}`][method])).toContain(
          check.text,
        );
    });
  }
}
