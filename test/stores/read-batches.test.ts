import { ReadBatches } from '../../src/stores/sql/read-batches';

// The batching of SQLite's lookups (read-batches.ts) on a stand-in reader whose statements the test finishes
// by hand: what goes together, what a failed statement does, and that nothing waits behind a failure.

interface Row {
  key: string;
}

function standIn() {
  const statements: { keys: string[]; finish(rows: Row[] | Error): void }[] = [];
  const started = (keys: string[]) =>
    new Promise<Row[]>((resolve, reject) =>
      statements.push({ keys, finish: (rows) => (rows instanceof Error ? reject(rows) : resolve(rows)) }),
    );
  const batches = new ReadBatches<Row>({
    one: async (key) => (await started([key]))[0] ?? null,
    many: (keys) => started([...keys]),
    keyOf: (row) => row.key,
  });
  return { batches, statements };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadBatches', () => {
  it('starts a lookup at once when none runs, and sends the ones that waited together next', async () => {
    const { batches, statements } = standIn();
    const first = batches.read('a');
    expect(statements.map((statement) => statement.keys)).toEqual([['a']]);
    const waiting = ['b', 'c', 'b', 'd'].map((key) => batches.read(key));
    expect(statements).toHaveLength(1);
    statements[0].finish([{ key: 'a' }]);
    await expect(first).resolves.toEqual({ key: 'a' });
    await turn();
    expect(statements.map((statement) => statement.keys)).toEqual([['a'], ['b', 'c', 'd']]);
    statements[1].finish([{ key: 'd' }, { key: 'b' }]);
    await expect(Promise.all(waiting)).resolves.toEqual([{ key: 'b' }, null, { key: 'b' }, { key: 'd' }]);
  });

  it('fails every lookup of a failed statement, and the next batch runs afresh', async () => {
    const { batches, statements } = standIn();
    const first = batches.read('a');
    const second = [batches.read('b'), batches.read('c')];
    statements[0].finish(new Error('no such column'));
    await expect(first).rejects.toThrow('no such column');
    await turn();
    statements[1].finish(new Error('no such column'));
    await expect(Promise.all(second)).rejects.toThrow('no such column');
    await expect(second[1]).rejects.toThrow('no such column');
    const after = batches.read('e');
    expect(statements.map((statement) => statement.keys)).toEqual([['a'], ['b', 'c'], ['e']]);
    statements[2].finish([{ key: 'e' }]);
    await expect(after).resolves.toEqual({ key: 'e' });
  });
});
