import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The generator's rule forms (scripts/new-module/rule-forms.ts, rule-changes.ts), its checks across fields
// (check-spec.ts, check-changes.ts) and its access policy changes (policy-changes.ts) in a scratch folder holding
// the module registry: what new:module and new:field write for allowed values, ranges, lengths and patterns,
// for `--check` and `--drop-check`, for `--read` and `--write`, and what they refuse, writing nothing. The
// generated module's own tests run in CI on a scratch copy of the repository, on populated SQLite, PostgreSQL
// and MariaDB databases (scripts/ci/new-module.sh).

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function run(cwd: string, args: string[], command: 'index' | 'field' = 'index') {
  const result = spawnSync(tsx, [path.join(root, `scripts/new-module/${command}.ts`), ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the generator and field rules', () => {
  let dir: string;
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  const files = () => readdirSync(path.join(dir, 'src/modules/bookings/migrations')).sort();

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'new-module-rules-'));
    mkdirSync(path.join(dir, 'src/modules/auth'), { recursive: true });
    writeFileSync(
      path.join(dir, 'src/modules/index.ts'),
      "import type { ModuleFactory } from '../services';\nimport { authModule } from './auth';\n\nexport const modules: ModuleFactory[] = [authModule];\n",
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('new:module writes enum, range, length and pattern forms into the declaration and the first migration alike', () => {
    const result = run(dir, [
      'tickets',
      'title:string:3..',
      'status:enum:open,in_progress,closed=open',
      'priority:integer:1..5=3',
      'score:number:0..?',
      'code:string:/^[A-Z]{3}$/?',
      '--filter',
      'status',
      '--sort',
      'priority,createdAt',
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const options = [
      ['title', '{ minLength: 3 }'],
      ['status', "{ enum: ['open', 'in_progress', 'closed'], default: 'open' }"],
      ['priority', '{ minimum: 1, maximum: 5, default: 3 }'],
      ['score', '{ optional: true, minimum: 0 }'],
      ['code', "{ optional: true, pattern: '^[A-Z]{3}$' }"],
    ];
    const resource = read('src/modules/tickets/resource.ts');
    const migration = read('src/modules/tickets/migrations/0001-create-tickets.ts');
    for (const [name, written] of options) {
      expect(resource).toMatch(
        new RegExp(`    ${name}: field\\.\\w+\\(${written.replace(/[[\]{}()$^?.]/g, '\\$&')}\\),`),
      );
      expect(migration).toContain(
        `c.${/status|title|code/.test(name!) ? 'string' : name === 'priority' ? 'integer' : 'number'}('${name}', ${written})`,
      );
    }
  });

  it('new:field adds a field with a rule, then widens, narrows and removes it, each change a setFieldRules migration with its down', () => {
    expect(run(dir, ['tickets', 'title:string', 'priority:integer:1..5=3']).status).toBe(0);
    const added = run(dir, ['tickets', 'severity:enum:low,normal,high=normal'], 'field');
    expect(added.status).toBe(0);
    expect(read('src/modules/tickets/migrations/0002-add-severity.ts')).toContain(
      "c.string('severity', { enum: ['low', 'normal', 'high'], default: 'normal' })",
    );
    expect(run(dir, ['tickets', 'priority', '--range', '1..10'], 'field').status).toBe(0);
    const widened = read('src/modules/tickets/migrations/0003-rules-priority.ts');
    expect(widened).toContain(
      "up: (queryInterface) => setFieldRules(queryInterface, 'tickets', 'priority', { minimum: 1, maximum: 10 }),",
    );
    expect(widened).toContain(
      "down: (queryInterface) => setFieldRules(queryInterface, 'tickets', 'priority', { minimum: 1, maximum: 5 }),",
    );
    expect(read('src/modules/tickets/resource.ts')).toContain(
      '    priority: field.integer({ minimum: 1, maximum: 10, default: 3 }),',
    ); // each rule rewritten where it stands
    expect(run(dir, ['tickets', 'severity', '--enum', 'normal,high'], 'field').status).toBe(0);
    expect(read('src/modules/tickets/resource.ts')).toContain(
      "    severity: field.string({ enum: ['normal', 'high'], default: 'normal' }),",
    );
    expect(run(dir, ['tickets', 'priority', '--no-rules'], 'field').status).toBe(0);
    expect(read('src/modules/tickets/migrations/0005-rules-priority.ts')).toContain(
      "setFieldRules(queryInterface, 'tickets', 'priority', {})",
    );
    const resource = read('src/modules/tickets/resource.ts');
    expect(resource).toContain('    priority: field.integer({ default: 3 }),');
    expect(resource).toMatch(
      /migrations: \[createTickets, addSeverity, rulesPriority0003, rulesSeverity0004, rulesPriority0005\]/,
    );
  });

  it('new:field --drop of a ruled field writes its rules into the down, which brings its CHECK back', () => {
    expect(
      run(dir, ['tickets', 'title:string', 'note:string?', 'priority:integer:1..5=3', 'status:enum:open,closed=open'])
        .status,
    ).toBe(0);
    expect(run(dir, ['tickets', 'priority', '--drop'], 'field').status).toBe(0);
    expect(read('src/modules/tickets/migrations/0002-drop-priority.ts')).toContain(
      "await restoreFieldColumns(queryInterface, 'tickets', (c) => c.integer('priority', { minimum: 1, maximum: 5, default: 3 }));",
    );
    expect(run(dir, ['tickets', 'status', '--drop'], 'field').status).toBe(0);
    expect(read('src/modules/tickets/migrations/0003-drop-status.ts')).toContain(
      "(c) => c.string('status', { enum: ['open', 'closed'], default: 'open' })",
    );
    // A rule written as a name from elsewhere: the down could not hold it, so the drop is refused.
    const file = path.join(dir, 'src/modules/tickets/resource.ts');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('title: field.string()', 'title: field.string({ minLength: MIN })'),
    );
    const refused = run(dir, ['tickets', 'title', '--drop'], 'field');
    expect(refused.stderr).toMatch(/the minLength of 'title' is MIN, not a literal/);
    expect(refused.status).toBe(2);
  });

  it.each([
    [['tickets', 'status:enum:open,open'], /an enum value is given twice/],
    [['tickets', 'status:enum:open,closed=bogus'], /the default "bogus" is not one of: open, closed/],
    [['tickets', 'priority:integer:5..1'], /minimum 5 is above maximum 1/],
    [['tickets', 'priority:integer:1.5..3'], /range end '1.5' is not an integer/],
    [['tickets', 'priority:integer:1..5=9'], /the default 9 is not from 1 to 5/],
    [['tickets', 'code:string:/([/'], /pattern \(\[ is not a regular expression/],
    [['tickets', 'code:string:/^\\p{Lu}[a-z]+$/'], /\\p\{…\} \(a Unicode property\): PostgreSQL cannot read it/],
    [['tickets', 'code:string:/^(?<word>[a-z]+)$/'], /\(\?<name>…\) \(a named group\): PostgreSQL cannot read it/],
  ])('new:module refuses %j with a clear message and writes nothing', (args, message) => {
    const result = run(dir, args);
    expect(result.stderr).toMatch(message);
    expect(result.status).toBe(2);
    expect(existsSync(path.join(dir, 'src/modules/tickets'))).toBe(false);
  });

  it.each([
    [['tickets', 'title', '--range', '1..3'], /'title' \(string\) is not an integer or number field/],
    [['tickets', 'priority', '--range', '4..5'], /the default 3 is not from 4 to 5/],
    [['tickets', 'priority', '--enum', 'a,b'], /enum, minLength and pattern are for string fields/],
    [['tickets', 'priority', '--range', '1..5'], /'priority' has these rules already/],
    [['tickets', 'priority', '--range', '1..9', '--drop'], /go alone/],
    [['tickets', 'nothing', '--enum', 'a'], /'nothing' is not a field of tickets/],
  ])('new:field refuses %j and writes nothing', (args, message) => {
    expect(run(dir, ['tickets', 'title:string', 'priority:integer:1..5=3']).status).toBe(0);
    const before = read('src/modules/tickets/resource.ts');
    const result = run(dir, args, 'field');
    expect(result.stderr).toMatch(message);
    expect(result.status).toBe(2);
    expect(read('src/modules/tickets/resource.ts')).toBe(before);
    expect(readdirSync(path.join(dir, 'src/modules/tickets/migrations'))).toEqual(['0001-create-tickets.ts']);
  });

  it("new:module writes --check into the declaration and the table's first migration, in column terms there", () => {
    const result = run(dir, [
      'bookings',
      'startsAt:datetime',
      'endsAt:datetime',
      'seats:integer:1..500',
      'used:integer=0',
      '--check',
      'endsAt>startsAt',
      '--check',
      'used <= seats',
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(read('src/modules/bookings/resource.ts')).toContain(
      "  checks: ['endsAt > startsAt', 'used <= seats'],\n  migrations: [createBookings],",
    );
    expect(read('src/modules/bookings/migrations/0001-create-bookings.ts')).toContain(
      "checks: ['ends_at > starts_at', 'used <= seats'],",
    );
  });

  it('refuses a check of unknown fields, of kinds that do not compare, or given twice, writing nothing', () => {
    for (const [check, said] of [
      ['endsAt > beginsAt', "'beginsAt' is not one of its fields"],
      ['endsAt > seats', 'endsAt (datetime) and seats (integer) are not of one comparable kind'],
      ['endsAt >> startsAt', 'write <field> <op> <field>'],
      ['note = title', 'not of one comparable kind'],
    ] as const) {
      const refused = run(dir, [
        'bookings',
        'startsAt:datetime',
        'endsAt:datetime',
        'seats:integer',
        'note:text?',
        'title:string',
        '--check',
        check,
      ]);
      expect({ check, status: refused.status, said: refused.stderr.includes(said) }).toEqual({
        check,
        status: 2,
        said: true,
      });
    }
    expect(
      run(dir, [
        'bookings',
        'startsAt:datetime',
        'endsAt:datetime',
        '--check',
        'endsAt > startsAt',
        '--check',
        'endsAt>startsAt',
      ]).stderr,
    ).toContain('a --check is given twice');
    expect(readdirSync(path.join(dir, 'src/modules'))).toEqual(['auth', 'index.ts']);
  });

  it('new:field adds a check and takes it out, each a migration with its down; a field in a check is renamed or dropped only once it is out', () => {
    expect(run(dir, ['bookings', 'startsAt:datetime', 'endsAt:datetime']).status).toBe(0);
    const added = run(dir, ['bookings', '--check', 'endsAt > startsAt'], 'field');
    expect(added.stderr).toBe('');
    expect(files()).toContain('0002-check-ends-at-gt-starts-at.ts');
    const migration = read('src/modules/bookings/migrations/0002-check-ends-at-gt-starts-at.ts');
    expect(migration).toContain(
      "up: (queryInterface) => addFieldCheck(queryInterface, 'bookings', 'ends_at > starts_at'),",
    );
    expect(migration).toContain(
      "down: (queryInterface) => removeFieldCheck(queryInterface, 'bookings', 'ends_at > starts_at'),",
    );
    expect(read('src/modules/bookings/resource.ts')).toContain("  checks: ['endsAt > startsAt'],");
    expect(run(dir, ['bookings', '--check', 'endsAt>startsAt'], 'field').stderr).toContain('declares it already');
    const renamed = run(dir, ['bookings', 'endsAt', '--rename', 'finishesAt'], 'field');
    expect(renamed.status).toBe(2);
    expect(renamed.stderr).toContain(
      "field 'endsAt' is in the check endsAt > startsAt of 'bookings': take it out first (npm run new:field -- bookings --drop-check 'endsAt > startsAt')",
    );
    expect(run(dir, ['bookings', '--drop-check', 'endsAt > startsAt'], 'field').status).toBe(0);
    expect(read('src/modules/bookings/migrations/0003-drop-ends-at-gt-starts-at.ts')).toContain(
      "up: (queryInterface) => removeFieldCheck(queryInterface, 'bookings', 'ends_at > starts_at'),",
    );
    expect(read('src/modules/bookings/resource.ts')).not.toContain('checks:');
    expect(run(dir, ['bookings', '--drop-check', 'endsAt > startsAt'], 'field').stderr).toContain(
      'bookings declares no such check (its checks: none)',
    );
    expect(run(dir, ['bookings', 'endsAt', '--rename', 'finishesAt'], 'field').status).toBe(0);
  });

  it('new:field changes who reads and writes: the declaration alone, and a migration making the records the catalogue’s when it becomes one', () => {
    expect(run(dir, ['rooms', 'name:string', 'capacity:integer:1..500', '--unique', 'name']).status).toBe(0);
    const resource = () => read('src/modules/rooms/resource.ts');
    expect(run(dir, ['rooms', '--read', 'authenticated'], 'field').stderr).toBe('');
    expect(resource()).toContain("  access: { read: 'authenticated', write: 'owner' },\n  migrations: [createRooms],");
    expect(readdirSync(path.join(dir, 'src/modules/rooms/migrations'))).toEqual(['0001-create-rooms.ts']); // who reads: the routes' business alone
    expect(run(dir, ['rooms', '--write', 'admin'], 'field').stderr).toBe('');
    expect(resource()).toContain("  access: { read: 'authenticated', write: 'admin' },");
    const migration = read('src/modules/rooms/migrations/0002-make-catalogue.ts');
    expect(migration).toContain("up: (queryInterface) => makeCatalogue(queryInterface, 'rooms', [['name']]),");
    expect(migration).toContain("documents: { collection: 'rooms', catalogue: { unique: [['name']] } },");
    expect(resource()).toContain('migrations: [createRooms, makeRoomsCatalogue],');
    const refused = run(dir, ['rooms', '--read', 'owner'], 'field');
    expect({
      status: refused.status,
      said: refused.stderr.includes('write admin needs read authenticated or public'),
    }).toEqual({ status: 2, said: true });
    expect(run(dir, ['rooms', '--write', 'admin'], 'field').stderr).toContain(
      'rooms has --read authenticated --write admin already',
    );
    expect(run(dir, ['rooms', '--read', 'owner', '--write', 'owner'], 'field').status).toBe(0);
    expect(resource()).not.toContain('access:'); // the default again; the records stay the catalogue's
  });
});
