// npm run new:module -- <name> <field>:<type>[?] ... [--unique a,b] [--filter a,b] [--sort a,b] [--dry-run]
// npm run new:field -- <module> <field>:<type>?|<existing field> [--default v] [--search] [--filter] [--sort] [--action a:f] [--dry-run]
// npm run new:field -- <module> <field> --rename <new name> | --drop | --required | --optional [--dry-run]   (column-change.ts)
// new:module writes a module declared with the kit under src/modules/<name>/ (resource.ts: fields, unique keys,
// filters, sort keys; its first migration; index.ts), its test file under test/modules/<name>/ (the kit's
// contract suites) and registers it in src/modules/index.ts. new:field adds a field to such a module: a new
// migration and the edited declaration. Both refuse a bad request writing nothing (exit 2), and regenerate
// the API document.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { plan, planField, splitArguments, write, type PlannedFile } from './generate';
import { planColumnChange } from './column-change';
import { FIELD_TYPES, SpecError } from './spec';

const USAGE = {
  module: `usage: npm run new:module -- <name> <field>:<type>[?][=default] ... [--unique a,b] [--filter a,b] [--sort a,b] [--search a,b] [--action <name>:<datetime field>|<name>:<field>=<value>,… [--from a,b]] [--dry-run]
  types: ${FIELD_TYPES.join(', ')}; ? marks an optional field; =value its default; --unique and --action may repeat
  --search: ?q= finds text in these string/text fields; --action archive:archivedAt: POST /:id/archive sets it to now (once)
  --action close:status=closed,closedAt=now --from open: sets each field (now, null or a value), only while status is open
  e.g.   npm run new:module -- notes title:string body:text? pinned:boolean=false --search title --action archive:archivedAt`,
  field: `usage: npm run new:field -- <module> <field>:<type>[?][=default] [--filter] [--sort] [--search] [--action <name>:<field>] [--dry-run]
         npm run new:field -- <module> <existing field> [--default <value>] [--search] [--filter] [--sort]
         npm run new:field -- <module> --action <name>:<datetime field>
         npm run new:field -- <module> --action close:status=closed,closedAt=now --from open,in_progress
         npm run new:field -- <module> <field> --rename <new name> | --drop | --required | --optional
  --filter, --sort: lists may filter / sort by it (its list indexes are written too, by new:indexes)
  --rename, --drop: a migration renaming the column in place / dropping it with its keys, and the declaration edited
  --required, --optional: the column refuses / takes null (required is refused while a row has no value)
  e.g.   npm run new:field -- notes dueAt:datetime? --sort ; npm run new:field -- notes pinned --default true
         npm run new:field -- tags name --rename label`,
};

export function main(command: 'module' | 'field', argv: string[]): number {
  try {
    const { positional, options, dryRun, flags } = splitArguments(
      argv,
      command === 'module' ? ['--unique', '--filter', '--sort', '--search', '--action', '--from'] : ['--default', '--action', '--from', '--rename'],
      command === 'field' ? ['--filter', '--sort', '--search', '--drop', '--required', '--optional'] : [],
    );
    const [name, ...fields] = positional;
    if (command === 'field' && fields.length > 1) throw new SpecError('one field at a time');
    if (options.default.length > 1) throw new SpecError('one --default at a time');
    const listed = { filter: flags.has('--filter'), sort: flags.has('--sort'), search: flags.has('--search'), default: options.default[0], actions: options.action, from: options.from };
    const rename = argv.includes('--rename') ? argv[argv.indexOf('--rename') + 1] : undefined;
    const required = flags.has('--required') ? true : flags.has('--optional') ? false : undefined;
    const changes = [rename !== undefined, flags.has('--drop'), flags.has('--required'), flags.has('--optional')].filter(Boolean).length;
    const others = listed.filter || listed.sort || listed.search || listed.default !== undefined || listed.actions.length > 0;
    if (changes > 1 || (changes === 1 && others)) throw new SpecError('--rename, --drop, --required and --optional go alone');
    const files: PlannedFile[] =
      command === 'module'
        ? plan(process.cwd(), name, fields, options)
        : changes === 1
          ? planColumnChange(process.cwd(), name, fields[0], { rename, drop: flags.has('--drop'), required })
          : planField(process.cwd(), name, fields[0], listed);
    if (dryRun) {
      process.stdout.write(`would write (dry run, nothing written):\n${files.map((f) => `  ${f.edit ? 'edit  ' : 'create'} ${f.path}`).join('\n')}\n`);
      return 0;
    }
    write(process.cwd(), files);
    if (listed.filter || listed.sort) {
      // The new sort key or filter needs its list indexes: derived from the edited declaration, in a process of their own.
      const indexes = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'scripts/new-module/indexes.ts', name!], { stdio: 'inherit' });
      if (indexes.status !== 0) process.stderr.write(`new:field: the field is written, but \`npm run new:indexes -- ${name}\` failed: run it after fixing the error above\n`);
    }
    // The committed API document follows the routes (make lint fails while it is stale).
    if (existsSync('src/cli/openapi.ts')) {
      const openapi = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'src/cli/openapi.ts'], { stdio: 'inherit' });
      if (openapi.status !== 0) process.stderr.write(`new:${command}: the files are written, but \`npm run openapi\` failed: run it after fixing the error above\n`);
    }
    process.stdout.write(`${files.map((f) => `${f.edit ? 'edited ' : 'created'} ${f.path}`).join('\n')}\nnext: make test\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    process.stderr.write(`new:${command}: ${error.message}; nothing was written\n${USAGE[command]}\n`);
    return 2;
  }
}
