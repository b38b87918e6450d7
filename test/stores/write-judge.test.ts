import { WriteRefusedError } from '../../src/stores/errors';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { notes } from '../support/resource-fixtures';
import { storeOf, valuesFor } from '../support/resource-samples';

// A module's own judge of a write (resourceModule's checkWrite, through the store's `judge`): given the record as
// it will be stored, its owner with it, and the stored one; a refusal writes nothing.

const sqlite = testEngines().find((engine) => engine.engine === 'sqlite')!;

describe('the judge of a write', () => {
  const opened = useEngineDatabase(sqlite, [resourceStore(notes)]);

  it('sees the record as it will be, with its owner, and the stored one; refusing writes nothing', async () => {
    const store = storeOf(opened.database(), notes);
    const seen: { next: Record<string, unknown>; stored: Record<string, unknown> | null }[] = [];
    const judge = async (next: Record<string, unknown>, stored: Record<string, unknown> | null) =>
      void seen.push({ next, stored });
    const values = await valuesFor(opened.database(), notes, 'judged-owner');
    const created = await store.create('judged-owner', values as never, { judge });
    expect(seen[0]).toEqual({ next: expect.objectContaining({ ...values, ownerId: 'judged-owner' }), stored: null });
    await store.update(created.id, { ownerId: 'judged-owner' }, { title: 'Changed' } as never, { judge });
    expect(seen[1]).toEqual({
      next: expect.objectContaining({ title: 'Changed', ownerId: 'judged-owner' }),
      stored: expect.objectContaining({ title: created.title }),
    });
    const refuse = async () => {
      throw new WriteRefusedError([{ field: 'title', message: 'is not welcome' }]);
    };
    await expect(
      store.update(created.id, { ownerId: 'judged-owner' }, { title: 'Refused' } as never, { judge: refuse }),
    ).rejects.toBeInstanceOf(WriteRefusedError);
    expect((await store.findById(created.id, {}))!.title).toBe('Changed');
  });
});
