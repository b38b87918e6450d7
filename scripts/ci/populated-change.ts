// new:field --rename and --drop on tables that hold rows, as a team meets them: `populate` migrates and writes
// tags (each pointing at a note) of the generated modules; after `npm run new:field -- tags name --rename label`
// and `npm run new:field -- tags note --drop`, `verify` migrates again and checks that the start-up comparison
// finds the tags table exactly as its new declaration says (columns, types, nullability, binary collation,
// indexes, foreign keys, unique keys), that the rows kept their names under `label`, and that the unique key
// still compares by code point ('Dup' beside 'dup'). DATABASE_URL names the database.
// Usage: tsx scripts/ci/populated-change.ts populate|verify
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { createDatabase } from '../../src/stores/create-database';
import type { AnyResource } from '../../src/stores/kit/resource';

const OWNER = 'ci-populated-change';

async function main(mode: string): Promise<void> {
  // Loaded at run time: the scratch copy's modules, as the generator left them.
  const { notesResource } = (await import(`${process.cwd()}/src/modules/notes/resource`)) as { notesResource: AnyResource };
  const { tagsResource } = (await import(`${process.cwd()}/src/modules/tags/resource`)) as { tagsResource: AnyResource };
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: process.env.DATABASE_URL ?? '' });
  const database = createDatabase(config, createLogger({ env: 'test', logLevel: 'silent' }), [resourceStore(notesResource), resourceStore(tagsResource)], { cleanupJob: false, connectAttempts: 3 });
  await database.connect();
  try {
    await database.migrate();
    const tags = database.store(resourceStore(tagsResource));
    if (mode === 'populate') {
      const note = await database.store(resourceStore(notesResource)).create(OWNER, { title: `populated-change-${Date.now()}` });
      for (const name of ['Dup', 'dup']) await tags.create(OWNER, { name, note: note.id });
      console.log(`populated-change: ${config.database.engine}: 2 tags written`);
      return;
    }
    await database.checkSchema(); // throws SchemaDriftError naming each difference
    const page = await tags.list({ ownerId: OWNER }, { where: [], sort: [], limit: 100, offset: 0 });
    const labels = page.items.map((item) => item.label).sort();
    if (labels.join() !== 'Dup,dup' || page.items.some((item) => 'name' in item || 'note' in item)) throw new Error(`expected the tags renamed and without note, got ${JSON.stringify(page.items)}`);
    await tags.create(OWNER, { label: 'dup ' }); // no padding: 'dup ' is not 'dup'
    const clash = await tags.create(OWNER, { label: 'dup' }).then(() => 'accepted', (error: Error) => error.name);
    if (clash === 'accepted') throw new Error('the unique key (label) did not survive the rename');
    console.log(`populated-change: ${config.database.engine}: the renamed and dropped table matches its declaration; rows kept; unique key and collation intact`);
  } finally {
    await database.close();
  }
}

main(process.argv[2] ?? '').catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
