import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The generator's checks across fields (scripts/new-module/check-spec.ts, check-changes.ts) and access policy
// changes (policy-changes.ts) in a scratch folder holding the module registry: what new:module writes for
// `--check` (the declaration and the table's CHECK), what new:field writes to add one or take one out (a
// migration each, with its down) or to change who reads and writes, and what they refuse, writing nothing. The
// generated suites run on populated engines in CI (scripts/ci/new-module.sh).

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function run(cwd: string, args: string[], command: 'index' | 'field' = 'index') {
  const result = spawnSync(tsx, [path.join(root, `scripts/new-module/${command}.ts`), ...args], { cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the generator and checks across fields', () => {
  let dir: string;
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  const files = () => readdirSync(path.join(dir, 'src/modules/bookings/migrations')).sort();

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'new-module-checks-'));
    mkdirSync(path.join(dir, 'src/modules/auth'), { recursive: true });
    writeFileSync(path.join(dir, 'src/modules/index.ts'), "import type { ModuleFactory } from '../services';\nimport { authModule } from './auth';\n\nexport const modules: ModuleFactory[] = [authModule];\n");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("new:module writes --check into the declaration and the table's first migration, in column terms there", () => {
    const result = run(dir, ['bookings', 'startsAt:datetime', 'endsAt:datetime', 'seats:integer:1..500', 'used:integer=0', '--check', 'endsAt>startsAt', '--check', 'used <= seats']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(read('src/modules/bookings/resource.ts')).toContain("  checks: ['endsAt > startsAt', 'used <= seats'],\n  migrations: [createBookings],");
    expect(read('src/modules/bookings/migrations/0001-create-bookings.ts')).toContain("checks: ['ends_at > starts_at', 'used <= seats'],");
  });

  it('refuses a check of unknown fields, of kinds that do not compare, or given twice, writing nothing', () => {
    for (const [check, said] of [
      ['endsAt > beginsAt', "'beginsAt' is not one of its fields"],
      ['endsAt > seats', 'endsAt (datetime) and seats (integer) are not of one comparable kind'],
      ['endsAt >> startsAt', 'write <field> <op> <field>'],
      ['note = title', 'not of one comparable kind'],
    ] as const) {
      const refused = run(dir, ['bookings', 'startsAt:datetime', 'endsAt:datetime', 'seats:integer', 'note:text?', 'title:string', '--check', check]);
      expect({ check, status: refused.status, said: refused.stderr.includes(said) }).toEqual({ check, status: 2, said: true });
    }
    expect(run(dir, ['bookings', 'startsAt:datetime', 'endsAt:datetime', '--check', 'endsAt > startsAt', '--check', 'endsAt>startsAt']).stderr).toContain('a --check is given twice');
    expect(readdirSync(path.join(dir, 'src/modules'))).toEqual(['auth', 'index.ts']);
  });

  it('new:field adds a check and takes it out, each a migration with its down; a field in a check is renamed or dropped only once it is out', () => {
    expect(run(dir, ['bookings', 'startsAt:datetime', 'endsAt:datetime']).status).toBe(0);
    const added = run(dir, ['bookings', '--check', 'endsAt > startsAt'], 'field');
    expect(added.stderr).toBe('');
    expect(files()).toContain('0002-check-ends-at-gt-starts-at.ts');
    const migration = read('src/modules/bookings/migrations/0002-check-ends-at-gt-starts-at.ts');
    expect(migration).toContain("up: (queryInterface) => addFieldCheck(queryInterface, 'bookings', 'ends_at > starts_at'),");
    expect(migration).toContain("down: (queryInterface) => removeFieldCheck(queryInterface, 'bookings', 'ends_at > starts_at'),");
    expect(read('src/modules/bookings/resource.ts')).toContain("  checks: ['endsAt > startsAt'],");
    expect(run(dir, ['bookings', '--check', 'endsAt>startsAt'], 'field').stderr).toContain('declares it already');
    const renamed = run(dir, ['bookings', 'endsAt', '--rename', 'finishesAt'], 'field');
    expect(renamed.status).toBe(2);
    expect(renamed.stderr).toContain("field 'endsAt' is in the check endsAt > startsAt of 'bookings': take it out first (npm run new:field -- bookings --drop-check 'endsAt > startsAt')");
    expect(run(dir, ['bookings', '--drop-check', 'endsAt > startsAt'], 'field').status).toBe(0);
    expect(read('src/modules/bookings/migrations/0003-drop-ends-at-gt-starts-at.ts')).toContain("up: (queryInterface) => removeFieldCheck(queryInterface, 'bookings', 'ends_at > starts_at'),");
    expect(read('src/modules/bookings/resource.ts')).not.toContain('checks:');
    expect(run(dir, ['bookings', '--drop-check', 'endsAt > startsAt'], 'field').stderr).toContain('bookings declares no such check (its checks: none)');
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
    expect({ status: refused.status, said: refused.stderr.includes('write admin needs read authenticated or public') }).toEqual({ status: 2, said: true });
    expect(run(dir, ['rooms', '--write', 'admin'], 'field').stderr).toContain('rooms has --read authenticated --write admin already');
    expect(run(dir, ['rooms', '--read', 'owner', '--write', 'owner'], 'field').status).toBe(0);
    expect(resource()).not.toContain('access:'); // the default again; the records stay the catalogue's
  });
});
