import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The generator's command line in a scratch folder holding the module registry: what it writes, what it
// refuses (writing nothing), and --dry-run. Lint, typecheck and the generated tests themselves run in CI
// on a scratch copy of the repository (scripts/ci/new-module.sh).

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function run(cwd: string, args: string[]) {
  const result = spawnSync(tsx, [path.join(root, 'scripts/new-module/index.ts'), ...args], { cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run new:module', () => {
  let dir: string;
  let registry: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'new-module-'));
    cpSync(path.join(root, 'src/modules/index.ts'), path.join(dir, 'src/modules/index.ts'), { recursive: true });
    cpSync(path.join(root, 'src/modules/auth'), path.join(dir, 'src/modules/auth'), { recursive: true });
    registry = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const untouched = () => {
    expect(readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8')).toBe(registry);
    expect(existsSync(path.join(dir, 'test'))).toBe(false);
  };

  it('writes the module and its tests, and registers it', () => {
    const result = run(dir, ['notes', 'title:string', 'body:text?', 'pinned:boolean?']);
    expect(result.status).toBe(0);
    for (const file of ['index.ts', 'routes.ts', 'schemas.ts', 'types.ts', 'store.ts', 'sql-store.ts', 'mongo-store.ts', 'migrations/0001-create-notes.ts']) {
      expect(existsSync(path.join(dir, 'src/modules/notes', file))).toBe(true);
    }
    expect(existsSync(path.join(dir, 'test/modules/notes/store.test.ts'))).toBe(true);
    expect(existsSync(path.join(dir, 'test/modules/notes/routes.test.ts'))).toBe(true);
    const edited = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
    expect(edited).toContain("import { notesModule } from './notes';");
    expect(edited).toMatch(/= \[authModule, usersModule, notesModule\];/);
    expect(readFileSync(path.join(dir, 'src/modules/notes/schemas.ts'), 'utf8')).toContain("required: ['title']");
  });

  it('--dry-run lists the files and writes nothing', () => {
    const result = run(dir, ['notes', 'title:string', '--dry-run']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('create src/modules/notes/routes.ts');
    expect(result.stdout).toContain('edit   src/modules/index.ts');
    expect(existsSync(path.join(dir, 'src/modules/notes'))).toBe(false);
    untouched();
  });

  it.each([
    [['Notes', 'title:string'], /module name 'Notes'/],
    [['my_notes', 'title:string'], /module name 'my_notes'/],
    [['auth', 'title:string'], /module name 'auth' is reserved/],
    [['notes'], /at least one field/],
    [['notes', 'title'], /expected <name>:<type>\[\?\]/],
    [['notes', 'title:varchar'], /unknown type 'varchar'/],
    [['notes', 'id:string'], /reserved/],
    [['notes', 'title:string', 'title:text'], /given twice/],
    [['notes', 'body:text?'], /at least one field must be required/],
    [['notes', 'Title:string'], /camelCase/],
    [['notes', 'title:string', '--force'], /unknown option --force/],
  ])('refuses %j with a clear message and writes nothing', (args, message) => {
    const result = run(dir, args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('nothing was written');
    expect(existsSync(path.join(dir, 'src/modules/notes'))).toBe(false);
    untouched();
  });

  it('refuses a module that exists already', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    const before = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
    const again = run(dir, ['notes', 'title:string']);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/module 'notes' exists already/);
    expect(readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8')).toBe(before);
  });
});
