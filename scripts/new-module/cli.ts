// npm run new:module -- <name> <field>:<type>[?] ... [--unique a,b] [--filter a,b] [--sort a,b] [--dry-run]
// npm run new:field -- <module> <field>:<type>?|<existing field> [--default v] [--search] [--filter [a,b]] [--sort [a,b]] [--action a:f] [--dry-run]
// npm run new:field -- <module> <field> --rename <new name> | --drop | --required | --optional [--dry-run]   (column-change.ts)
// npm run new:field -- <module> <field> --enum a,b | --range 1..5 | --min-length 3 | --pattern <re> | --no-rules   (rule-changes.ts)
// npm run new:field -- <module> --check '<field> <op> <field>' | --drop-check '…'   (check-changes.ts)
// npm run new:field -- <module> --read … --write …   (policy-changes.ts)
// new:module writes a module declared with the kit under src/modules/<name>/ (resource.ts: fields, unique keys,
// filters, sort keys; its first migration; index.ts), its test file under test/modules/<name>/ (the kit's
// contract suites) and registers it in src/modules/index.ts. new:field adds a field to such a module: a new
// migration and the edited declaration. Both refuse a bad request writing nothing (exit 2), and regenerate
// the API document.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { plan, planField, splitArguments, write } from './generate';
import type { PlannedFile } from './source-edits';
import { planColumnChange } from './column-change';
import type { FieldChange } from './field-changes';
import { planIndexes } from './indexes';
import { givesRuleChange, planRuleChange, RULE_OPTIONS, type RuleChange } from './rule-changes';
import { SpecError } from './field-spec';
import { planCheckChange } from './check-changes';
import { planPolicyChange } from './policy-changes';
import { FIELD_TYPES } from './spec';

const USAGE = {
  module: `usage: npm run new:module -- <name> <field>:<type>[?][=default] ... [--unique a,b] [--filter a,b] [--sort a,b] [--search a,b] [--action <name>:<datetime field>|<name>:<field>=<value>,… [--from a,b]] [--read owner|authenticated|public] [--write owner|admin|role:<name>] [--dry-run]
  types: ${FIELD_TYPES.join(', ')}; ? marks an optional field; =value its default; --unique and --action may repeat
  rules: status:enum:open,closed=open (allowed values), priority:integer:1..5=3 (a range, either end may be left out),
         code:string:/^[A-Z]{3}$/ (a pattern), name:string:3.. (at least 3 characters)
  --search: ?q= finds text in these string/text fields; --action archive:archivedAt: POST /:id/archive sets it to now (once)
  --action close:status=closed,closedAt=now --from open: sets each field (now, null or a value), only while status is open
  --read authenticated --write admin: a catalogue every signed-in user reads and admins write (default: owner, owner)
  --check 'endsAt > startsAt': a rule across two fields of one kind (< <= > >= = !=), held by the database too
  e.g.   npm run new:module -- notes title:string body:text? pinned:boolean=false --search title --action archive:archivedAt`,
  field: `usage: npm run new:field -- <module> <field>:<type>[?][=default] [--filter [fields]] [--sort [fields]] [--search [field]] [--action <name>:<field>] [--dry-run]
         npm run new:field -- <module> <existing field> [--default <value>] [--search] [--filter] [--sort]
         npm run new:field -- <module> --action <name>:<datetime field>
         npm run new:field -- <module> --action close:status=closed,closedAt=now --from open,in_progress
         npm run new:field -- <module> <field> --rename <new name> | --drop | --required | --optional
         npm run new:field -- <module> <field> --enum <a,b,c> | --range <min>..<max> | --min-length <n> | --pattern <re> | --no-rules
         npm run new:field -- <module> --check '<field> <op> <field>' | --drop-check '<field> <op> <field>'
         npm run new:field -- <module> --read owner|authenticated|public --write owner|admin|role:<name>
  --filter, --sort: lists may filter / sort by it (its list indexes are written too, in the next migration);
                    with a value, by those fields: --filter severity, --sort rank,createdAt
  --rename, --drop: a migration renaming the column in place / dropping it with its keys, and the declaration edited
  --required, --optional: the column refuses / takes null (required is refused while a row has no value)
  --enum a,b | --range 1..5 | --min-length 3 | --pattern <re> | --no-rules: the field's rules changed (a narrowing is
         refused while rows break it, naming how many); a new field takes them in its form: status:enum:open,closed=open
  --check, --drop-check: a rule across two fields added (refused while rows break it, naming how many) or taken out
  --read, --write: who may read and write; a module becoming a catalogue has its records made the catalogue's
  e.g.   npm run new:field -- notes dueAt:datetime? --sort ; npm run new:field -- notes pinned --default true
         npm run new:field -- tags name --rename label`,
};

/** Names given to an option, comma-separated lists flattened. */
/** What to run next: the module's own suite first (seconds), then the whole one (minutes). */
export const quickLoop = (name: string) =>
  `next: npx jest test/modules/${name} (SQLite; with TEST_POSTGRES_URL and TEST_MYSQL_URL set, on those engines too), then make test`;

const namesIn = (values: readonly string[]) => values.flatMap((value) => value.split(',')).filter(Boolean);

/** new:field's field argument and its changes: `--filter`, `--sort`, `--search` bare (the field named) or naming fields. */
function fieldChange(
  fields: string[],
  options: ReturnType<typeof splitArguments>['options'],
  flags: Set<string>,
): { fieldArgument: string | undefined; listed: FieldChange } {
  if (fields.length > 1) throw new SpecError('one field at a time');
  if (options.default.length > 1) throw new SpecError('one --default at a time');
  const named = [...new Set([...namesIn(options.filter), ...namesIn(options.sort), ...namesIn(options.search)])];
  // `new:field -- notes --filter title`: the field is the one the options name.
  const fieldArgument = fields[0] ?? (named.length === 1 ? named[0] : undefined);
  const fieldName = fieldArgument?.split(/[:=?]/)[0];
  const searched = namesIn(options.search);
  if (searched.some((name) => name !== fieldName))
    throw new SpecError(
      `--search ${searched.join(',')}: new:field makes the field it adds or names searchable (npm run new:field -- <module> ${searched[0]} --search)`,
    );
  const list = (values: string[], flag: string) => (values.length > 0 ? namesIn(values) : flags.has(flag));
  return {
    fieldArgument,
    listed: {
      filter: list(options.filter, '--filter'),
      sort: list(options.sort, '--sort'),
      search: flags.has('--search'),
      default: options.default[0],
      actions: options.action,
      from: options.from,
    },
  };
}

/** The list indexes the edited declaration needs (after --filter / --sort), written after the field's own files. */
async function listIndexes(module: string): Promise<PlannedFile[]> {
  try {
    const files = await planIndexes(process.cwd(), module);
    write(process.cwd(), files);
    return files;
  } catch (error) {
    process.stderr.write(
      `new:field: the field is written, but its list indexes were not (${(error as Error).message}): run \`npm run new:indexes -- ${module}\` after fixing it\n`,
    );
    return [];
  }
}

export async function main(command: 'module' | 'field', argv: string[]): Promise<number> {
  try {
    const { positional, options, dryRun, flags } = splitArguments(
      argv,
      command === 'module'
        ? ['--unique', '--filter', '--sort', '--search', '--action', '--from', '--read', '--write', '--check']
        : [
            '--default',
            '--action',
            '--from',
            '--rename',
            '--check',
            '--drop-check',
            '--read',
            '--write',
            ...RULE_OPTIONS,
          ],
      command === 'field' ? ['--filter', '--sort', '--search', '--drop', '--required', '--optional', '--no-rules'] : [],
      command === 'field' ? ['--filter', '--sort', '--search'] : [],
    );
    const [name, ...fields] = positional;
    const { fieldArgument, listed } =
      command === 'field'
        ? fieldChange(fields, options, flags)
        : { fieldArgument: undefined, listed: {} as FieldChange };
    const rename = argv.includes('--rename') ? argv[argv.indexOf('--rename') + 1] : undefined;
    const required = flags.has('--required') ? true : flags.has('--optional') ? false : undefined;
    const valueOf = (option: string) => (argv.includes(option) ? argv[argv.indexOf(option) + 1] : undefined);
    const rules: RuleChange = {
      enum: valueOf('--enum'),
      range: valueOf('--range'),
      minLength: valueOf('--min-length'),
      pattern: valueOf('--pattern'),
      none: flags.has('--no-rules'),
    };
    const check = command === 'field' ? (valueOf('--check') ?? valueOf('--drop-check')) : undefined;
    const policy = command === 'field' && (argv.includes('--read') || argv.includes('--write'));
    const changes = [
      rename !== undefined,
      flags.has('--drop'),
      flags.has('--required'),
      flags.has('--optional'),
      givesRuleChange(rules),
      check !== undefined,
      policy,
    ].filter(Boolean).length;
    const others =
      listed.filter ||
      listed.sort ||
      listed.search ||
      listed.default !== undefined ||
      (listed.actions ?? []).length > 0;
    if (changes > 1 || (changes === 1 && others))
      throw new SpecError(
        '--rename, --drop, --required and --optional go alone, as do a rule change (--enum, --range, --min-length, --pattern, --no-rules) and --check / --drop-check',
      );
    if ((check !== undefined || policy) && fields.length > 0)
      throw new SpecError(
        `--check, --drop-check, --read and --write name the module only: npm run new:field -- ${name} --check '<field> <op> <field>'`,
      );
    const files: PlannedFile[] =
      command === 'module'
        ? plan(process.cwd(), name, fields, options)
        : policy
          ? planPolicyChange(process.cwd(), name, valueOf('--read'), valueOf('--write'))
          : check !== undefined
            ? planCheckChange(process.cwd(), name, check, argv.includes('--drop-check'))
            : givesRuleChange(rules)
              ? planRuleChange(process.cwd(), name, fieldArgument, rules)
              : changes === 1
                ? planColumnChange(process.cwd(), name, fieldArgument, { rename, drop: flags.has('--drop'), required })
                : planField(process.cwd(), name, fieldArgument, listed);
    const indexed = command === 'field' && Boolean(listed.filter || listed.sort);
    if (dryRun) {
      const then = indexed
        ? '\n  then   the migration adding the list indexes the edited declaration needs, if any (npm run new:indexes)'
        : '';
      process.stdout.write(
        `would write (dry run, nothing written):\n${files.map((f) => `  ${f.edit ? 'edit  ' : 'create'} ${f.path}`).join('\n')}${then}\n`,
      );
      return 0;
    }
    write(process.cwd(), files);
    // A new sort key or filter needs its list indexes: derived from the edited declaration, in the next migration.
    const written = indexed ? [...files, ...(await listIndexes(name!))] : files;
    // In the order written; a file written twice (the declaration) where it was last written.
    const listing = written.filter(
      (file, index) => !written.slice(index + 1).some((later) => later.path === file.path),
    );
    process.stdout.write(`${listing.map((f) => `${f.edit ? 'edited ' : 'created'} ${f.path}`).join('\n')}\n`);
    // The committed API document follows the routes (make lint fails while it is stale).
    if (existsSync('src/cli/openapi.ts')) {
      const openapi = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'src/cli/openapi.ts'], {
        stdio: 'inherit',
      });
      if (openapi.status !== 0)
        process.stderr.write(
          `new:${command}: the files are written, but \`npm run openapi\` failed: run it after fixing the error above\n`,
        );
    }
    process.stdout.write(`${quickLoop(name!)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    process.stderr.write(`new:${command}: ${error.message}; nothing was written\n${USAGE[command]}\n`);
    return 2;
  }
}
