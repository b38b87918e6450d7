import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { DestructiveMigrationError } from '../../src/stores/errors';
import { applyDocumentChanges, revertLastDocumentChange } from '../../src/stores/mongo/document-migrations';
import type { SqlMigration } from '../../src/stores/sql/migrations/migration';
import { testEngines, type StartedEngine } from '../support/engines';

// MongoDB document migrations against a real server (TEST_MONGO_URL, or a container with TEST_CONTAINERS:
// the CI's MongoDB job): two instances starting at once apply a rename once, under the lock; `down`
// renames back; a removal of values waits for `allowDestructive`. The calls themselves are checked without
// a server in document-migrations-driver-calls.test.ts.

const target = testEngines().find((engine) => engine.engine === 'mongodb')!;
const noop = async () => undefined;
const renameName: SqlMigration = {
  name: 'dm-tags-0002-rename-name',
  up: noop,
  down: noop,
  documents: { collection: 'tags', rename: { name: 'label' } },
};
const dropColour: SqlMigration = {
  name: 'dm-tags-0003-drop-colour',
  up: noop,
  down: noop,
  documents: { collection: 'tags', unset: ['colour'] },
};

(target.skipReason ? describe.skip : describe)(`MongoDB document migrations on ${target.label}`, () => {
  let started: StartedEngine | undefined;
  const opened: Connection[] = [];
  const dbName = `docmig_${randomBytes(4).toString('hex')}`;
  const connect = async () => {
    const connection = await mongoose
      .createConnection(started!.url, { dbName, autoIndex: false, autoCreate: false })
      .asPromise();
    opened.push(connection);
    return connection;
  };

  beforeAll(async () => {
    started = await target.start();
    const connection = await connect();
    const tags = connection.db!.collection('tags');
    await tags.insertMany([
      { _id: 'a' as never, name: 'Red', nameFolded: 'red', colour: 'red' },
      { _id: 'b' as never, name: 'Blue', nameFolded: 'blue' },
    ]);
    await tags.createIndex({ ownerId: 1, nameFolded: 1 }, { name: 'ownerId_1_nameFolded_1' });
  }, 240_000);
  afterAll(async () => {
    await opened[0]?.db?.dropDatabase();
    for (const connection of opened) await connection.close();
    await started?.stop();
  });

  it('two instances at once: the rename is applied once, the other finds it recorded', async () => {
    const [one, two] = [await connect(), await connect()];
    const results = await Promise.all([
      applyDocumentChanges(one, [renameName]),
      applyDocumentChanges(two, [renameName]),
    ]);
    expect(results.flat()).toEqual([renameName.name]);
    const tags = one.db!.collection('tags');
    expect(
      await tags
        .find({}, { projection: { _id: 1, label: 1, labelFolded: 1, name: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual([
      { _id: 'a', label: 'Red', labelFolded: 'red' },
      { _id: 'b', label: 'Blue', labelFolded: 'blue' },
    ]);
    expect((await tags.indexes()).map((index) => index.name)).toEqual(['_id_']);
    expect(await one.db!.collection('schema_migrations').countDocuments({ _id: renameName.name as never })).toBe(1);
    expect(await one.db!.collection('schema_migrations_lock').countDocuments()).toBe(0);
  });

  it('down renames back and forgets the record; a removal of values is refused at start-up, then allowed, and cannot be reverted', async () => {
    const connection = await connect();
    expect(await revertLastDocumentChange(connection, [renameName])).toBe(renameName.name);
    const tags = connection.db!.collection('tags');
    expect(await tags.findOne({ _id: 'a' as never })).toMatchObject({ name: 'Red', nameFolded: 'red' });
    expect(await connection.db!.collection('schema_migrations').countDocuments({ _id: renameName.name as never })).toBe(
      0,
    );

    await expect(applyDocumentChanges(connection, [renameName, dropColour])).rejects.toThrow(DestructiveMigrationError);
    expect(await tags.findOne({ _id: 'a' as never })).toMatchObject({ name: 'Red', colour: 'red' }); // nothing applied
    expect(await applyDocumentChanges(connection, [renameName, dropColour], { allowDestructive: true })).toEqual([
      renameName.name,
      dropColour.name,
    ]);
    expect(await tags.findOne({ _id: 'a' as never })).toEqual({ _id: 'a', label: 'Red', labelFolded: 'red' });
    await expect(revertLastDocumentChange(connection, [renameName, dropColour])).rejects.toThrow(
      /cannot revert dm-tags-0003-drop-colour on MongoDB/,
    );
  });

  it("takes over a lease that ran out by the server's clock, and waits for a live one", async () => {
    const connection = await connect();
    const locks = connection.db!.collection<{ _id: string; owner: string; at: Date }>('schema_migrations_lock');
    await locks.deleteMany({});
    await locks.insertOne({ _id: 'migrations', owner: 'a dead instance', at: new Date(Date.now() - 120_000) });
    await applyDocumentChanges(connection, [renameName], { lock: { waitMs: 2_000, leaseMs: 60_000 } });
    expect(await locks.countDocuments()).toBe(0); // taken over, then released
    // One a release before `at` left (owner, expiresAt only), run out: taken over too.
    await locks.insertOne({
      _id: 'migrations',
      owner: 'an old release',
      expiresAt: new Date(Date.now() - 1_000),
    } as never);
    await applyDocumentChanges(connection, [renameName], { lock: { waitMs: 2_000, leaseMs: 60_000 } });
    expect(await locks.countDocuments()).toBe(0);
    await locks.updateOne(
      { _id: 'migrations' },
      { $set: { owner: 'a live instance' }, $currentDate: { at: true } },
      { upsert: true },
    );
    await expect(
      applyDocumentChanges(connection, [renameName], { lock: { waitMs: 500, leaseMs: 60_000 } }),
    ).rejects.toThrow(/held the MongoDB migration lock/);
    await locks.deleteMany({});
  });
});
