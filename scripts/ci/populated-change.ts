// new:field --rename and --drop on tables that hold rows, as a team meets them: `populate` migrates and writes
// tags (each pointing at a note) of the generated modules; after `npm run new:field -- tags name --rename label`
// and `npm run new:field -- tags note --drop`, `verify` migrates again and checks that the start-up comparison
// finds the tags table exactly as its new declaration says (columns, types, nullability, binary collation,
// indexes, foreign keys, unique keys), that the rows kept their names under `label`, and that `label` still
// compares by code point ('dup' is not 'Dup'). The drop destroys values, so start-up's migrate() must refuse
// it; verify then runs it as an operator would (`db:migrate -- up --allow-destructive`). DATABASE_URL names
// the database, or the URLs after the mode name several, checked in turn.
// Usage: tsx scripts/ci/populated-change.ts populate|verify [database url...]
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { createDatabase } from '../../src/stores/create-database';
import { DestructiveMigrationError } from '../../src/stores/errors';
import type { AnyResource } from '../../src/stores/kit/resource';

const OWNER = 'ci-populated-change';

async function main(mode: string, url: string): Promise<void> {
  // Loaded at run time: the scratch copy's modules, as the generator left them.
  const { notesResource } = (await import(`${process.cwd()}/src/modules/notes/resource`)) as {
    notesResource: AnyResource;
  };
  const { tagsResource } = (await import(`${process.cwd()}/src/modules/tags/resource`)) as {
    tagsResource: AnyResource;
  };
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url });
  const database = createDatabase(
    config,
    createLogger({ env: 'test', logLevel: 'silent' }),
    [resourceStore(notesResource), resourceStore(tagsResource)],
    { cleanupJob: false, connectAttempts: 3 },
  );
  await database.connect();
  try {
    if (mode === 'verify') {
      const refusal = await database.migrate().then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof DestructiveMigrationError) return error;
          throw error;
        },
      );
      // The first verify follows the drop of tags.note (values): start-up refuses it; later verifies have nothing destructive pending.
      if (refusal)
        console.log(
          `populated-change: ${config.database.engine}: start-up refused the drop (${refusal.refused.map((entry) => entry.migration).join(', ')}); running it as the operator would`,
        );
    }
    await database.migrate({ allowDestructive: mode === 'verify' });
    const tags = database.store(resourceStore(tagsResource));
    if (mode === 'populate') {
      const note = await database
        .store(resourceStore(notesResource))
        .create(OWNER, { title: `populated-change-${Date.now()}` });
      for (const name of ['Dup', 'dup']) await tags.create(OWNER, { name, note: note.id });
      console.log(`populated-change: ${config.database.engine}: 2 tags written`);
      return;
    }
    await database.checkSchema(); // throws SchemaDriftError naming each difference
    const page = await tags.list({ ownerId: OWNER }, { where: [], sort: [], limit: 100, offset: 0 });
    const labels = page.items.map((item) => item.label).sort();
    if (labels.join() !== 'Dup,dup' || page.items.some((item) => 'name' in item || 'note' in item))
      throw new Error(`expected the tags renamed and without note, got ${JSON.stringify(page.items)}`);
    // The binary collation survived: 'dup' finds one tag, not 'Dup' too (MariaDB's default collation would find both).
    const exact = await tags.list(
      { ownerId: OWNER },
      { where: [{ field: 'label', comparison: 'eq', value: 'dup' }], sort: [], limit: 100, offset: 0 },
    );
    if (exact.items.length !== 1)
      throw new Error(`label = 'dup' found ${exact.items.length} tags: the column lost its binary collation`);
    console.log(
      `populated-change: ${config.database.engine}: the renamed and dropped table matches its declaration; rows kept; collation intact`,
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
