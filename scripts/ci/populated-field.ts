// new:field on a table that holds rows, as a team meets it: `populate` migrates and writes records of the
// generated notes module; after `npm run new:field -- notes priority:integer?`, `verify` migrates again
// (the new column and, for --filter --sort, its list indexes are added to the populated table) and checks the old records read the field as null and
// take a value. DATABASE_URL names the database, or the URLs after the mode name several, checked in turn.
// Usage: tsx scripts/ci/populated-field.ts populate|verify [database url...]
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { createDatabase } from '../../src/stores/create-database';
import type { AnyResource } from '../../src/stores/kit/resource';

const OWNER = 'ci-populated-field';

async function main(mode: string, url: string): Promise<void> {
  // Loaded at run time: the scratch copy's module, as new:field left it.
  const { notesResource } = (await import(`${process.cwd()}/src/modules/notes/resource`)) as {
    notesResource: AnyResource;
  };
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url });
  const database = createDatabase(
    config,
    createLogger({ env: 'test', logLevel: 'silent' }),
    [resourceStore(notesResource)],
    { cleanupJob: false, connectAttempts: 3 },
  );
  await database.connect();
  try {
    await database.migrate();
    const store = database.store(resourceStore(notesResource));
    if (mode === 'populate') {
      for (let i = 0; i < 3; i += 1) await store.create(OWNER, { title: `populated-${Date.now()}-${i}` });
      console.log(`populated-field: ${config.database.engine}: 3 notes written`);
      return;
    }
    const page = await store.list({ ownerId: OWNER }, { where: [], sort: [], limit: 100, offset: 0 });
    const kept = page.items.filter((item) => item.priority === null);
    if (page.items.length < 3 || kept.length !== page.items.length)
      throw new Error(`expected the populated notes with priority null, got ${JSON.stringify(page.items)}`);
    const changed = await store.update(page.items[0]!.id, { ownerId: OWNER }, { priority: 7 });
    if (changed?.priority !== 7) throw new Error(`priority was not kept: ${JSON.stringify(changed)}`);
    // --filter --sort: its list indexes were added to the populated table (online), so the start-up check passes and the list sorts by it.
    await database.checkSchema();
    const sorted = await store.list(
      { ownerId: OWNER },
      {
        where: [{ field: 'priority', comparison: 'eq', value: 7 }],
        sort: [{ field: 'priority', descending: true }],
        limit: 100,
        offset: 0,
      },
    );
    if (sorted.items.length !== 1 || sorted.items[0]!.id !== changed.id)
      throw new Error(`the list by priority is wrong: ${JSON.stringify(sorted.items)}`);
    // `new:field -- notes title --search`: the search shadow was filled from the earlier rows; `rank --default 0`: a new note gets it.
    const found = await store.list(
      { ownerId: OWNER },
      { where: [], sort: [], limit: 100, offset: 0, search: 'POPULATED-' },
    );
    if (found.items.length !== page.items.length)
      throw new Error(`?q= does not find the earlier notes: ${JSON.stringify(found.items)}`);
    const fresh = await store.create(OWNER, { title: `populated-${Date.now()}-fresh` });
    if (fresh.rank !== 0) throw new Error(`rank's default was not given: ${JSON.stringify(fresh)}`);
    console.log(
      `populated-field: ${config.database.engine}: ${page.items.length} earlier notes read priority null, one now holds 7, ?q= finds them; its list indexes are there`,
    );
  } finally {
    await database.close();
  }
}

// The databases named after the mode, one after the other in this one process (the modules loaded once), else DATABASE_URL.
async function each([mode = '', ...urls]: string[]): Promise<void> {
  for (const url of urls.length > 0 ? urls : [process.env.DATABASE_URL ?? '']) await main(mode, url);
}

each(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
