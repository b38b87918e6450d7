// Field rules on tables that hold rows, as a team meets them, with the generated projects and tickets modules
// (`tickets status:enum:open,in_progress,closed=open priority:integer:1..5=3 project:ref:projects:cascade`):
//   populate        migrates and writes tickets of every priority 1..5
//   widened         after `new:field -- tickets severity:enum:low,normal,high=normal --filter` and
//                   `new:field -- tickets priority --range 1..10`: the earlier tickets read severity normal, a
//                   priority of 9 is taken, the database itself refuses a bad severity, the start-up check passes
//   narrow-refused  after `new:field -- tickets priority --range 1..3`: migrating is refused naming how many rows
//                   break the rule, and nothing changed (9 still taken); then those tickets are deleted
//   narrowed        migrating now passes, the database refuses a priority of 4, the start-up check passes
// DATABASE_URL names the database, or the URLs after the mode name several, checked in turn.
// Usage: tsx scripts/ci/populated-rules.ts <mode> [database url...]
import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { createDatabase } from '../../src/stores/create-database';
import { newId } from '../../src/stores/ids';
import type { AnyResource } from '../../src/stores/kit/resource';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import type { ResourceStore } from '../../src/stores/kit/resource-store';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';

const OWNER = 'ci-populated-rules';

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

async function main(mode: string, url: string): Promise<void> {
  // Loaded at run time: the scratch copy's modules, as the generator left them.
  const { ticketsResource } = (await import(`${process.cwd()}/src/modules/tickets/resource`)) as {
    ticketsResource: AnyResource;
  };
  const { projectsResource } = (await import(`${process.cwd()}/src/modules/projects/resource`)) as {
    projectsResource: AnyResource;
  };
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url });
  const database = createDatabase(
    config,
    createLogger({ env: 'test', logLevel: 'silent' }),
    [resourceStore(ticketsResource)],
    { cleanupJob: false, connectAttempts: 3 },
  );
  const engine = config.database.engine;
  await database.connect();
  try {
    const migrated = await database.migrate().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    const tickets = database.store(resourceStore(ticketsResource)) as ResourceStore<Record<string, never>>;
    const mine = async () =>
      (await tickets.list({ ownerId: OWNER }, { where: [], sort: [], limit: 100, offset: 0 }))
        .items as unknown as Record<string, unknown>[];
    const rawInsert = (values: Record<string, unknown>) =>
      (database as SqlDatabase).queryInterface().bulkInsert('tickets', [
        {
          id: newId(),
          owner_id: OWNER,
          title: 'raw',
          status: 'open',
          priority: 1,
          project: values.project,
          created_at: new Date(),
          updated_at: new Date(),
          ...values,
        },
      ]);
    if (mode === 'narrow-refused') {
      // Every owner's (the modules' tests write tickets into the same database).
      const above = {
        where: [{ field: 'priority', comparison: 'gt' as const, value: 3 }],
        sort: [],
        limit: 100,
        offset: 0,
        countUpTo: 100_000,
      };
      const breaking = (await tickets.list({}, above)).total ?? 0;
      check(
        migrated !== undefined &&
          migrated.message.includes(`${breaking} rows of tickets hold a priority that is not from 1 to 3`),
        `expected the narrowing refused naming ${breaking} rows, got ${migrated?.message ?? 'no refusal'}`,
      );
      const some = (await mine())[0]!;
      check(
        (await tickets.update(String(some.id), { ownerId: OWNER }, { priority: 9 } as never)) !== null,
        'the refused migration changed the rule',
      );
      for (let page = await tickets.list({}, above); page.items.length > 0; page = await tickets.list({}, above))
        for (const ticket of page.items) await tickets.delete(ticket.id, {});
      console.log(
        `populated-rules: ${engine}: narrowing refused naming ${breaking} rows, nothing changed; those tickets deleted`,
      );
      return;
    }
    if (migrated) throw migrated;
    if (mode === 'populate') {
      const project = await database
        .store(resourceStore(projectsResource))
        .create(OWNER, { name: `populated-${Date.now()}` } as never);
      for (let priority = 1; priority <= 5; priority += 1)
        await tickets.create(OWNER, { title: `ticket ${priority}`, priority, project: project.id } as never);
      console.log(`populated-rules: ${engine}: 5 tickets written`);
      return;
    }
    await database.checkSchema();
    const earlier = await mine();
    const project = earlier[0]!.project;
    if (mode === 'widened') {
      check(
        earlier.length === 5 && earlier.every((ticket) => ticket.severity === 'normal'),
        `expected the earlier tickets with severity normal: ${JSON.stringify(earlier)}`,
      );
      const nine = await tickets.update(String(earlier[0]!.id), { ownerId: OWNER }, { priority: 9 } as never);
      check((nine as Record<string, unknown> | null)?.priority === 9, 'a priority of 9 was not taken after widening');
      await rawInsert({ project, severity: 'bogus' }).then(
        () => check(false, 'the database took a severity outside the rule'),
        () => undefined,
      );
      console.log(
        `populated-rules: ${engine}: earlier tickets read severity normal, priority 9 taken, a raw bad severity refused`,
      );
      return;
    }
    check(
      earlier.every((ticket) => Number(ticket.priority) <= 3),
      'tickets above 3 are left',
    );
    await rawInsert({ project, severity: 'normal', priority: 4 }).then(
      () => check(false, 'the database took a priority of 4 after narrowing to 1..3'),
      () => undefined,
    );
    console.log(`populated-rules: ${engine}: narrowed to 1..3, the database refuses 4`);
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
