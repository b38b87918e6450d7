import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The generator's command line in a scratch folder holding the module registry: what it writes, what it
// refuses (writing nothing), and --dry-run. Lint, typecheck and the generated tests themselves run in CI
// on a scratch copy of the repository (scripts/ci/new-module.sh).

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function run(cwd: string, args: string[], command: 'index' | 'field' | 'remove' | 'indexes' = 'index') {
  const result = spawnSync(tsx, [path.join(root, `scripts/new-module/${command}.ts`), ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run new:module', () => {
  let dir: string;
  let registry: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'new-module-'));
    // The registry as a fresh clone has it (the real one may list generated modules already).
    registry =
      "import type { ModuleFactory } from '../services';\nimport { authModule } from './auth';\n\nexport const modules: ModuleFactory[] = [authModule];\n";
    mkdirSync(path.join(dir, 'src/modules/auth'), { recursive: true });
    writeFileSync(path.join(dir, 'src/modules/index.ts'), registry);
    // new:field --filter / --sort loads the edited declaration (its list indexes): the kit, from the repository.
    writeFileSync(path.join(dir, 'src/modules/kit.ts'), `export * from '${root}/src/modules/kit';\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const untouched = () => {
    expect(readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8')).toBe(registry);
    expect(existsSync(path.join(dir, 'test'))).toBe(false);
  };

  it('writes the declarations, the first migration and the test file, and registers the module', () => {
    const result = run(dir, [
      'notes',
      'title:string',
      'body:text?',
      'pinned:boolean?',
      '--unique',
      'title',
      '--filter',
      'pinned,createdAt',
      '--sort',
      'title',
    ]);
    expect(result.status).toBe(0);
    for (const file of ['index.ts', 'resource.ts', 'migrations/0001-create-notes.ts'])
      expect(existsSync(path.join(dir, 'src/modules/notes', file))).toBe(true);
    expect(existsSync(path.join(dir, 'test/modules/notes/notes.test.ts'))).toBe(true);
    const edited = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
    expect(edited).toContain("import { notesModule } from './notes';");
    expect(edited).toMatch(/= \[authModule, notesModule\];/);
    const resource = readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8');
    expect(resource).toContain('    title: field.string(),\n    body: field.text({ optional: true }),');
    expect(resource).toContain("  unique: [['title']],\n  filters: ['pinned', 'createdAt'],\n  sort: ['title'],");
    const migration = readFileSync(path.join(dir, 'src/modules/notes/migrations/0001-create-notes.ts'), 'utf8');
    expect(migration).toContain("unique: [['title']],");
    // The list indexes of the declaration (sort title and createdAt, for the owner and across owners; pinned with each), frozen in the migration.
    for (const columns of [
      "['owner_id', 'title', 'id']",
      "['title', 'id']",
      "['created_at', 'id']",
      "['owner_id', 'pinned', 'title', 'id']",
      "['owner_id', 'pinned', 'created_at', 'id']",
    ])
      expect(migration).toContain(columns);
  });

  it('writes a reference to another kit module, restricting or cascading, and its column', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    expect(run(dir, ['tags', 'name:string', 'note:ref:notes', 'pinnedTo:ref:notes:cascade?']).status).toBe(0);
    const resource = readFileSync(path.join(dir, 'src/modules/tags/resource.ts'), 'utf8');
    expect(resource).toContain("import { notesResource } from '../notes/resource';");
    expect(resource).toContain('note: field.reference(() => notesResource),');
    expect(resource).toContain(
      "pinnedTo: field.reference(() => notesResource, { optional: true, onDelete: 'cascade' }),",
    );
    const migration = readFileSync(path.join(dir, 'src/modules/tags/migrations/0001-create-tags.ts'), 'utf8');
    expect(migration).toContain("...c.reference('pinned_to', 'notes', { optional: true, onDelete: 'cascade' }),");
  });

  it('new:field adds an optional field: a new migration and the edited declaration', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    const result = run(dir, ['notes', 'dueAt:datetime?'], 'field');
    expect(result.status).toBe(0);
    const migration = readFileSync(path.join(dir, 'src/modules/notes/migrations/0002-add-due-at.ts'), 'utf8');
    expect(migration).toContain("name: 'notes-0002-add-due-at',");
    expect(migration).toContain(
      "addFieldColumns(queryInterface, 'notes', (c) => c.datetime('due_at', { optional: true }))",
    );
    const resource = readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8');
    expect(resource).toContain("import { addDueAt } from './migrations/0002-add-due-at';");
    expect(resource).toContain('    title: field.string(),\n    dueAt: field.datetime({ optional: true }),\n  },');
    expect(resource).toContain('migrations: [createNotes, addDueAt],');
    expect(migration).not.toContain('documents:'); // documents without it read null, as rows do

    // A field with a default: the rows get it from the column's DEFAULT, MongoDB's documents from the fill.
    expect(run(dir, ['notes', 'status:string=Élan', '--search'], 'field').status).toBe(0);
    const withDefault = readFileSync(path.join(dir, 'src/modules/notes/migrations/0003-add-status.ts'), 'utf8');
    expect(withDefault).toContain("c.string('status', { default: 'Élan', search: true })");
    expect(withDefault).toContain(
      "  documents: { collection: 'notes', fill: [{ field: 'status', default: 'Élan', search: true }] },",
    );
  });

  it.each([
    [['notes', 'priority:integer'], /the table may hold rows/],
    [['notes', 'title:string?'], /'title' is given twice/],
    [['nothing', 'x:string?'], /no module 'nothing' declared with the kit/],
    [['notes', 'x:ref:nothing?'], /no module 'nothing'/],
  ])('new:field refuses %j and writes nothing', (args, message) => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    const before = readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8');
    const migrations = readdirSync(path.join(dir, 'src/modules/notes/migrations'));
    const result = run(dir, args, 'field');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8')).toBe(before);
    expect(readdirSync(path.join(dir, 'src/modules/notes/migrations'))).toEqual(migrations);
  });

  it('new:field --rename renames the field in the declaration (fields, unique, filters, sort) and writes the in-place rename, MongoDB included', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    expect(
      run(dir, [
        'tags',
        'name:string',
        'note:ref:notes:cascade',
        '--unique',
        'note,name',
        '--filter',
        'note,name',
        '--sort',
        'name',
      ]).status,
    ).toBe(0);
    const result = run(dir, ['tags', 'name', '--rename', 'label'], 'field');
    expect(result.status).toBe(0);
    const resource = readFileSync(path.join(dir, 'src/modules/tags/resource.ts'), 'utf8');
    expect(resource).toContain(
      "    label: field.string(),\n    note: field.reference(() => notesResource, { onDelete: 'cascade' }),\n  },",
    );
    expect(resource).toContain("  unique: [['note', 'label']],\n  filters: ['note', 'label'],\n  sort: ['label'],");
    expect(resource).toContain('migrations: [createTags, renameNameToLabel],');
    const migration = readFileSync(path.join(dir, 'src/modules/tags/migrations/0002-rename-name-to-label.ts'), 'utf8');
    expect(migration).toContain("up: (queryInterface) => renameFieldColumn(queryInterface, 'tags', 'name', 'label'),");
    expect(migration).toContain(
      "down: (queryInterface) => renameFieldColumn(queryInterface, 'tags', 'label', 'name'),",
    );
    expect(migration).toContain("documents: { collection: 'tags', rename: { name: 'label' } },");
  });

  it('new:field --drop removes the field, its unique keys and list entries and an unused import; the down brings back its keys and indexes', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    expect(
      run(dir, [
        'tags',
        'name:string',
        'note:ref:notes:cascade',
        '--unique',
        'note,name',
        '--filter',
        'note,name',
        '--sort',
        'name',
      ]).status,
    ).toBe(0);
    expect(run(dir, ['tags', 'note', '--drop'], 'field').status).toBe(0);
    const resource = readFileSync(path.join(dir, 'src/modules/tags/resource.ts'), 'utf8');
    expect(resource).not.toContain('notesResource');
    expect(resource).not.toContain('unique:');
    expect(resource).toContain("  filters: ['name'],\n  sort: ['name'],");
    const migration = readFileSync(path.join(dir, 'src/modules/tags/migrations/0002-drop-note.ts'), 'utf8');
    expect(migration).toContain("up: (queryInterface) => dropFieldColumn(queryInterface, 'tags', 'note'),");
    expect(migration).toContain("destroys: [{ table: 'tags', column: 'note' }],"); // start-up does not run it over values
    expect(migration).toContain(
      "await restoreFieldColumns(queryInterface, 'tags', (c) => c.reference('note', 'notes', { onDelete: 'cascade' }));",
    );
    expect(migration).toContain("await addUniqueKey(queryInterface, 'tags', ['note', 'name']);");
    expect(migration).toContain(
      "await createListIndexes(queryInterface, 'tags', [['owner_id', 'note', 'name', 'id'], ['owner_id', 'note', 'created_at', 'id']]);",
    );
    expect(migration).toContain("documents: { collection: 'tags', unset: ['note'] },");
  });

  it('new:field --optional / --required edit the declaration and write the nullability change, its down lenient where it must be', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    expect(run(dir, ['tags', 'name:string', 'note:ref:notes:cascade', 'rank:integer?']).status).toBe(0);
    expect(run(dir, ['tags', 'note', '--optional'], 'field').status).toBe(0);
    expect(run(dir, ['tags', 'name', '--optional'], 'field').status).toBe(0);
    expect(run(dir, ['tags', 'rank', '--required'], 'field').status).toBe(0);
    const resource = readFileSync(path.join(dir, 'src/modules/tags/resource.ts'), 'utf8');
    expect(resource).toContain(
      "    name: field.string({ optional: true }),\n    note: field.reference(() => notesResource, { optional: true, onDelete: 'cascade' }),\n    rank: field.integer(),\n",
    );
    const optional = readFileSync(path.join(dir, 'src/modules/tags/migrations/0002-make-note-optional.ts'), 'utf8');
    expect(optional).toContain("up: (queryInterface) => setFieldRequired(queryInterface, 'tags', 'note', false),");
    expect(optional).toContain(
      "down: (queryInterface) => setFieldRequired(queryInterface, 'tags', 'note', true, { ifPossible: true }),",
    );
    const required = readFileSync(path.join(dir, 'src/modules/tags/migrations/0004-make-rank-required.ts'), 'utf8');
    expect(required).toContain("up: (queryInterface) => setFieldRequired(queryInterface, 'tags', 'rank', true),");
    expect(required).toContain("down: (queryInterface) => setFieldRequired(queryInterface, 'tags', 'rank', false),");
  });

  it.each([
    [['notes', 'nope', '--rename', 'other'], /module 'notes' has no field 'nope'/],
    [['notes', 'title', '--rename', 'body'], /has a field 'body' already/],
    [['notes', 'title', '--rename', 'Bad'], /camelCase/],
    [['notes', 'title', '--rename', 'createdAt'], /reserved/],
    [['notes', 'body', '--drop', '--rename', 'x'], /--rename, --drop, --required and --optional go alone/],
    [['notes', 'title', '--drop', '--sort'], /--rename, --drop, --required and --optional go alone/],
    [['notes', 'title', '--required'], /field 'title' is required already/],
    [['notes', 'body', '--optional'], /field 'body' is optional already/],
  ])('new:field refuses the change %j and writes nothing', (args, message) => {
    expect(run(dir, ['notes', 'title:string', 'body:text?']).status).toBe(0);
    const before = readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8');
    const result = run(dir, args, 'field');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8')).toBe(before);
  });

  it('refuses a layout SQL Server would refuse (two cascade paths from one table), as the kit would at start-up, and writes nothing', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    const registered = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
    const twice = run(dir, ['tags', 'name:string', 'note:ref:notes:cascade', 'pinnedTo:ref:notes:cascade?']);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(
      /resource 'tags': deleting a 'notes' record would reach it by 2 cascade paths, tags\.note → notes and tags\.pinnedTo → notes/,
    );
    expect(existsSync(path.join(dir, 'src/modules/tags'))).toBe(false);
    expect(existsSync(path.join(dir, 'test/modules/tags'))).toBe(false);
    expect(readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8')).toBe(registered);

    // A diamond: lists and tags cascade from notes; a tagging cascading from both reaches notes twice.
    expect(run(dir, ['lists', 'name:string', 'note:ref:notes:cascade']).status).toBe(0);
    expect(run(dir, ['tags', 'name:string', 'note:ref:notes:cascade']).status).toBe(0);
    const diamond = run(dir, ['taggings', 'tag:ref:tags:cascade', 'list:ref:lists:cascade']);
    expect(diamond.stderr).toMatch(
      /resource 'taggings': deleting a 'notes' record would reach it by 2 cascade paths, taggings\.tag → tags\.note → notes and taggings\.list → lists\.note → notes/,
    );
    expect(run(dir, ['taggings', 'tag:ref:tags:cascade', 'list:ref:lists:restrict']).status).toBe(0);
    // new:field asks the same: a shortcut from taggings straight to notes.
    const before = readFileSync(path.join(dir, 'src/modules/taggings/resource.ts'), 'utf8');
    const shortcut = run(dir, ['taggings', 'note:ref:notes:cascade?'], 'field');
    expect(shortcut.status).toBe(2);
    expect(shortcut.stderr).toMatch(/2 cascade paths, taggings\.tag → tags\.note → notes and taggings\.note → notes/);
    expect(readFileSync(path.join(dir, 'src/modules/taggings/resource.ts'), 'utf8')).toBe(before);
    expect(run(dir, ['taggings', 'note:ref:notes?'], 'field').status).toBe(0);
  });

  it("remove:module keeps the module's migrations (moved, with one dropping its table), unlists it and deletes the rest; refused while referenced", () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    expect(run(dir, ['tags', 'name:string', 'note:ref:notes:cascade']).status).toBe(0);
    const refused = run(dir, ['notes'], 'remove');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /module tags \(note\) points at 'notes': remove it first: npm run remove:module -- tags;/,
    );
    expect(existsSync(path.join(dir, 'src/modules/notes/resource.ts'))).toBe(true);

    expect(run(dir, ['tags'], 'remove').status).toBe(0);
    expect(existsSync(path.join(dir, 'src/modules/tags'))).toBe(false);
    expect(existsSync(path.join(dir, 'test/modules/tags'))).toBe(false);
    const registry = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
    expect(registry).not.toContain('tagsModule');
    expect(registry).toMatch(/= \[authModule, notesModule, removedModules\];/);
    expect(readFileSync(path.join(dir, 'src/modules/removed/tags/migrations/0001-create-tags.ts'), 'utf8')).toContain(
      "from '../../../kit'",
    );
    const removal = readFileSync(path.join(dir, 'src/modules/removed/tags/migrations/0002-remove-module.ts'), 'utf8');
    expect(removal).toContain("name: 'tags-0002-remove-module',");
    expect(removal).toContain("destroys: [{ table: 'tags' }],"); // start-up does not run it over rows
    expect(removal).toContain("up: (queryInterface) => queryInterface.dropTable('tags'),");
    expect(removal).toContain('for (const migration of [createTags]) await migration.up(queryInterface);');
    expect(readFileSync(path.join(dir, 'src/modules/removed/tags/index.ts'), 'utf8')).toContain(
      "export const tagsHistory: RemovedHistory = {\n  table: 'tags',\n  references: ['notes'],\n  migrations: [createTags],\n  removal: removeTags,\n};",
    );
    const removed = readFileSync(path.join(dir, 'src/modules/removed/index.ts'), 'utf8');
    expect(removed).toContain('migrations: removedMigrations([tagsHistory]),');
    // tags' table points at notes', which is still a module: the removed store's migrations run after notes'.
    expect(removed).toContain('dependsOn: [resourceStore(notesResource)],');

    // Removed later, notes' history is listed after tags' (removedMigrations builds notes first on a fresh database).
    expect(run(dir, ['notes'], 'remove').status).toBe(0);
    expect(readFileSync(path.join(dir, 'src/modules/removed/index.ts'), 'utf8')).toContain(
      'migrations: removedMigrations([tagsHistory, notesHistory]),',
    );
    expect(readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8')).toMatch(/= \[authModule, removedModules\];/);
  });

  it('new:field --filter / --sort take field names as new:module does, and the files are printed in the order written', () => {
    expect(run(dir, ['tickets', 'title:string']).status).toBe(0);
    const result = run(
      dir,
      ['tickets', 'severity:string=normal', '--filter', 'severity', '--sort', 'severity,createdAt'],
      'field',
    );
    expect(result.stderr).not.toMatch(/one field at a time/);
    expect(result.status).toBe(0);
    const resource = readFileSync(path.join(dir, 'src/modules/tickets/resource.ts'), 'utf8');
    expect(resource).toContain("  filters: ['severity'],\n  sort: ['severity', 'createdAt'],");
    expect(result.stdout).toMatch(
      /^created src\/modules\/tickets\/migrations\/0002-add-severity\.ts\ncreated src\/modules\/tickets\/migrations\/0003-add-list-indexes\.ts\nedited {2}src\/modules\/tickets\/resource\.ts\n/,
    );
    // The bare flag still means the field named; a value naming the field works alone too.
    expect(run(dir, ['tickets', 'title', '--filter'], 'field').status).toBe(0);
    expect(run(dir, ['tickets', '--sort', 'title'], 'field').status).toBe(0);
    const again = readFileSync(path.join(dir, 'src/modules/tickets/resource.ts'), 'utf8');
    expect(again).toContain("  filters: ['severity', 'title'],\n  sort: ['severity', 'createdAt', 'title'],");
    const refused = run(dir, ['tickets', 'title', '--search', 'severity'], 'field');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--search severity: new:field makes the field it adds or names searchable/);
  });

  it('--dry-run lists the files and writes nothing', () => {
    const result = run(dir, ['notes', 'title:string', '--dry-run']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('create src/modules/notes/resource.ts');
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
    [['notes', 'title:string', '--unique'], /--unique needs a value/],
    [['notes', 'title:string', 'body:text', '--unique', 'body'], /'body' is text/],
    [['notes', 'title:string', '--filter', 'nope'], /'nope' is not one of the fields/],
    [['notes', 'title:string', 'note:ref:nothing'], /no module 'nothing' declared with the kit/],
    [['notes', 'title:string', 'note:ref'], /a reference names its module/],
  ])('refuses %j with a clear message and writes nothing', (args, message) => {
    const result = run(dir, args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('nothing was written');
    expect(existsSync(path.join(dir, 'src/modules/notes'))).toBe(false);
    untouched();
  });

  it('writes who may read and write (--read, --write), and refuses a policy the kit would refuse, writing nothing', () => {
    const rooms = run(dir, ['rooms', 'name:string', '--unique', 'name', '--read', 'authenticated', '--write', 'admin']);
    expect(rooms.status).toBe(0);
    expect(rooms.stdout).toContain('next: npx jest test/modules/rooms');
    expect(readFileSync(path.join(dir, 'src/modules/rooms/resource.ts'), 'utf8')).toContain(
      "  access: { read: 'authenticated', write: 'admin' },\n",
    );
    const plain = run(dir, ['notes', 'title:string']);
    expect(readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8')).not.toContain('access:'); // the default: each user their own
    expect(plain.status).toBe(0);
    const rolesFile = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
    for (const [args, message] of [
      [['--write', 'admin'], /--read owner --write admin: write admin needs read authenticated or public/],
      [['--read', 'everyone'], /read must be owner, authenticated, public/],
      [['--write', 'role:'], /write must be owner, admin or role:<name>/],
    ] as const) {
      const refused = run(dir, ['plans', 'name:string', ...args]);
      expect([refused.status, refused.stderr]).toEqual([2, expect.stringMatching(message)]); // a bad spec: exit 2, as every refusal of the generator
      expect(existsSync(path.join(dir, 'src/modules/plans'))).toBe(false);
    }
    expect(readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8')).toBe(rolesFile);
    expect(run(dir, ['plans', 'name:string', '--read', 'public', '--write', 'role:editor']).status).toBe(0);
  });

  it('refuses a module that exists already', () => {
    expect(run(dir, ['notes', 'title:string']).status).toBe(0);
    const before = readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8');
    const again = run(dir, ['notes', 'title:string']);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/module 'notes' exists already/);
    expect(readFileSync(path.join(dir, 'src/modules/index.ts'), 'utf8')).toBe(before);
  });

  it('writes defaults (name:type=value), --search and --action into the declaration and the first migration', () => {
    const result = run(dir, [
      'notes',
      'title:string',
      'body:text?',
      'pinned:boolean=false',
      'rank:integer=-1',
      "label:string=it's",
      '--search',
      'title,body',
      '--action',
      'archive:archivedAt',
    ]);
    expect(result.status).toBe(0);
    const resource = readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8');
    expect(resource).toContain(
      "    pinned: field.boolean({ default: false }),\n    rank: field.integer({ default: -1 }),\n    label: field.string({ default: 'it\\'s' }),\n",
    );
    expect(resource).toContain('    archivedAt: field.datetime({ optional: true, readOnly: true }),\n  },');
    expect(resource).toContain(
      "  search: ['title', 'body'],\n  actions: {\n    archive: { access: 'owner-or-admin', set: { archivedAt: 'now' }, unless: 'archivedAt' },\n  },\n  migrations: [createNotes],",
    );
    const migration = readFileSync(path.join(dir, 'src/modules/notes/migrations/0001-create-notes.ts'), 'utf8');
    for (const column of [
      "c.string('title', { search: true })",
      "c.text('body', { optional: true, search: true })",
      "c.boolean('pinned', { default: false })",
      "c.datetime('archived_at', { optional: true })",
    ])
      expect(migration).toContain(column);
  });

  it('new:field --default reads and replaces a string default holding a comma or a brace', () => {
    expect(run(dir, ['notes', 'title:string', 'label:string=a, {b}']).status).toBe(0);
    expect(run(dir, ['notes', 'label', '--default', "c, it's"], 'field').status).toBe(0);
    const resource = readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8');
    expect(resource).toContain("    label: field.string({ default: 'c, it\\'s' }),\n");
    const migration = readFileSync(path.join(dir, 'src/modules/notes/migrations/0002-default-label.ts'), 'utf8');
    expect(migration).toContain(
      "up: (queryInterface) => setFieldDefault(queryInterface, 'notes', 'label', 'c, it\\'s', ",
    );
    expect(migration).toContain(
      "down: (queryInterface) => setFieldDefault(queryInterface, 'notes', 'label', 'a, {b}', ",
    );
  });

  it('new:field changes an existing field (--default, --search) and adds actions, each in a migration of its own', () => {
    expect(run(dir, ['notes', 'title:string', 'pinned:boolean?']).status).toBe(0);
    expect(run(dir, ['notes', 'pinned', '--default', 'true'], 'field').status).toBe(0);
    expect(run(dir, ['notes', 'title', '--search'], 'field').status).toBe(0);
    expect(run(dir, ['notes', '--action', 'archive:archivedAt'], 'field').status).toBe(0);
    expect(run(dir, ['notes', 'body:text?', '--search', '--action', 'publish:publishedAt'], 'field').status).toBe(0);
    const read = (file: string) => readFileSync(path.join(dir, 'src/modules/notes', file), 'utf8');
    expect(read('migrations/0002-default-pinned.ts')).toContain(
      "up: (queryInterface) => setFieldDefault(queryInterface, 'notes', 'pinned', true, { caseInsensitive: false, search: false }),",
    );
    expect(read('migrations/0002-default-pinned.ts')).toContain(
      "down: (queryInterface) => setFieldDefault(queryInterface, 'notes', 'pinned', null,",
    );
    expect(read('migrations/0003-search-title.ts')).toContain(
      "addSearchColumn(queryInterface, 'notes', 'title', { kind: 'string' }).then(() => addSearchIndex(queryInterface, 'notes', ['title_search'])).then(() => addSearchIndex(queryInterface, 'notes', ['title_search'], { searchIndex: 'per-owner' }))",
    );
    expect(read('migrations/0003-search-title.ts')).toContain(
      "down: (queryInterface) => removeSearchIndex(queryInterface, 'notes', ['title_search'], { searchIndex: 'per-owner' }).then(() => removeSearchIndex(queryInterface, 'notes', ['title_search'])).then(() => dropFieldColumn(queryInterface, 'notes', 'title_search')),",
    );
    expect(read('migrations/0003-search-title.ts')).toContain(
      "  documents: { collection: 'notes', fill: [{ field: 'title', search: true }] },",
    );
    expect(read('migrations/0003-search-title.ts')).toContain('  transaction: false,'); // the fill commits batch by batch; PostgreSQL builds the index CONCURRENTLY
    expect(read('migrations/0004-add-archived-at.ts')).toContain("c.datetime('archived_at', { optional: true })");
    expect(read('migrations/0005-add-body.ts')).toContain(
      "(c) => c.text('body', { optional: true, search: true }), { searchPerOwner: true }",
    );
    expect(read('migrations/0006-add-published-at.ts')).toContain("c.datetime('published_at', { optional: true })");
    const resource = read('resource.ts');
    expect(resource).toContain('    pinned: field.boolean({ optional: true, default: true }),');
    expect(resource).toContain("  search: ['title', 'body'],");
    expect(resource).toContain(
      "    archive: { access: 'owner-or-admin', set: { archivedAt: 'now' }, unless: 'archivedAt' },\n    publish: { access: 'owner-or-admin', set: { publishedAt: 'now' }, unless: 'publishedAt' },\n  },",
    );
    expect(resource).toContain(
      'migrations: [createNotes, defaultPinned0002, searchTitle, addArchivedAt, addBody, addPublishedAt],',
    );
  });

  it('new:indexes knows the search index of every searched field, whichever migration built it, and writes only a missing one', () => {
    expect(run(dir, ['notes', 'title:string', '--search', 'title']).status).toBe(0); // createResourceTable builds it
    expect(run(dir, ['notes', 'body:text?', '--search'], 'field').status).toBe(0); // addFieldColumns builds it
    expect(run(dir, ['notes', 'label:string?'], 'field').status).toBe(0);
    expect(run(dir, ['notes', 'label', '--search'], 'field').status).toBe(0); // addSearchIndex builds it
    const current = run(dir, ['notes'], 'indexes');
    expect(current).toMatchObject({ status: 0, stdout: expect.stringMatching(/nothing to write/) });
    // A shadow its migration filled but never indexed (a table from before the search index was built with it).
    const searchLabel = path.join(dir, 'src/modules/notes/migrations/0004-search-label.ts');
    const text = readFileSync(searchLabel, 'utf8');
    writeFileSync(
      searchLabel,
      text.replace(".then(() => addSearchIndex(queryInterface, 'notes', ['label_search']))", ''),
    );
    expect(readFileSync(searchLabel, 'utf8')).not.toContain(
      "addSearchIndex(queryInterface, 'notes', ['label_search'])",
    );
    expect(run(dir, ['notes'], 'indexes').status).toBe(0);
    const added = readFileSync(path.join(dir, 'src/modules/notes/migrations/0005-add-list-indexes.ts'), 'utf8');
    expect(added).toContain("addSearchIndex(queryInterface, 'notes', ['label_search'])");
    expect(added).not.toMatch(/title_search|body_search|per-owner/);
    expect(run(dir, ['notes'], 'indexes').stdout).toMatch(/nothing to write/);
  });

  it('new:indexes follows a searched field through a rename and a drop: its indexes go with its column', () => {
    expect(run(dir, ['notes', 'title:string', 'summary:string?', '--search', 'title,summary']).status).toBe(0);
    expect(run(dir, ['notes', 'title', '--rename', 'heading'], 'field').status).toBe(0);
    expect(run(dir, ['notes'], 'indexes').stdout).toMatch(/nothing to write/);
    expect(run(dir, ['notes', 'summary', '--drop'], 'field').status).toBe(0);
    // Added again by a step written before per-owner indexes: the one the drop took is not counted.
    expect(run(dir, ['notes', 'summary:string?', '--search'], 'field').status).toBe(0);
    const migrations = path.join(dir, 'src/modules/notes/migrations');
    const file = path.join(migrations, '0004-add-summary.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace(', { searchPerOwner: true }', ''));
    expect(run(dir, ['notes'], 'indexes').status).toBe(0);
    expect(readFileSync(path.join(migrations, '0005-add-list-indexes.ts'), 'utf8')).toContain(
      "up: (queryInterface) => addSearchIndex(queryInterface, 'notes', ['summary_search'], { searchIndex: 'per-owner' }),",
    );
  });

  it('new:indexes writes the per-owner search indexes a module generated before them lacks, and drops them on the way down', () => {
    expect(run(dir, ['notes', 'title:string', '--search', 'title']).status).toBe(0);
    expect(run(dir, ['notes', 'body:text?', '--search'], 'field').status).toBe(0);
    // The files as the generator wrote them before per-owner indexes: the table-wide index alone.
    const migrations = path.join(dir, 'src/modules/notes/migrations');
    for (const [file, option] of [
      ['0001-create-notes.ts', /\n\s*searchPerOwner: true,/],
      ['0002-add-body.ts', /, \{ searchPerOwner: true \}/],
    ] as const) {
      const text = readFileSync(path.join(migrations, file), 'utf8');
      expect(text).toMatch(option);
      writeFileSync(path.join(migrations, file), text.replace(option, ''));
    }
    expect(run(dir, ['notes'], 'indexes').status).toBe(0);
    const added = readFileSync(path.join(migrations, '0003-add-list-indexes.ts'), 'utf8');
    expect(added).toContain(
      "up: (queryInterface) => addSearchIndex(queryInterface, 'notes', ['title_search', 'body_search'], { searchIndex: 'per-owner' }),",
    );
    expect(added).toContain(
      "down: (queryInterface) => removeSearchIndex(queryInterface, 'notes', ['title_search', 'body_search'], { searchIndex: 'per-owner', online: true }),",
    );
    expect(added).toContain('transaction: false,');
    expect(run(dir, ['notes'], 'indexes').stdout).toMatch(/nothing to write/);
  });

  it('--action with several fields and --from writes state actions (new:field adds a datetime named for now), and new:module takes the form too', () => {
    expect(run(dir, ['tickets', 'title:string', 'status:string=open']).status).toBe(0);
    expect(
      run(dir, ['tickets', '--action', 'close:status=closed,closedAt=now', '--from', 'open,in_progress'], 'field')
        .status,
    ).toBe(0);
    expect(
      run(dir, ['tickets', '--action', 'reopen:status=open,closedAt=null', '--from', 'closed'], 'field').status,
    ).toBe(0);
    const read = (module: string, file: string) => readFileSync(path.join(dir, 'src/modules', module, file), 'utf8');
    expect(read('tickets', 'migrations/0002-add-closed-at.ts')).toContain(
      "c.datetime('closed_at', { optional: true })",
    );
    const resource = read('tickets', 'resource.ts');
    expect(resource).toContain('    closedAt: field.datetime({ optional: true, readOnly: true }),');
    expect(resource).toContain(
      "    close: { access: 'owner-or-admin', set: { status: 'closed', closedAt: 'now' }, from: { status: ['open', 'in_progress'] } },\n    reopen: { access: 'owner-or-admin', set: { status: 'open', closedAt: null }, from: { status: ['closed'] } },\n  },",
    );
    expect(readdirSync(path.join(dir, 'src/modules/tickets/migrations'))).toHaveLength(2); // reopen adds nothing: closedAt exists
    expect(
      run(dir, [
        'issues',
        'title:string',
        'state:string=new',
        '--action',
        'start:state=started,startedAt=now',
        '--from',
        'new',
      ]).status,
    ).toBe(0);
    expect(read('issues', 'resource.ts')).toContain(
      "    start: { access: 'owner-or-admin', set: { state: 'started', startedAt: 'now' }, from: { state: ['new'] } },",
    );
  });

  it.each([
    [
      [
        'tickets',
        'title:string',
        'status:string=open',
        '--action',
        'close:status=closed',
        '--action',
        'drop:status=gone',
        '--from',
        'open',
      ],
      /--from goes with exactly one --action/,
    ],
    [
      ['tickets', 'title:string', 'status:string=open', '--action', 'archive:archivedAt', '--from', 'open'],
      /--from goes with an action that sets a state/,
    ],
    [
      ['tickets', 'title:string', 'status:string=open', '--action', 'close:status=now'],
      /'status' is string \(now is for datetimes\)/,
    ],
    [
      ['tickets', 'title:string', 'status:string', '--action', 'close:status=closed'],
      /'status' is required without a default/,
    ],
    [
      ['tickets', 'title:string', 'status:string=open', '--action', 'close:closedAt=now', '--from', 'open'],
      /exactly one field that is not a datetime/,
    ],
    [['tickets', 'title:string', '--action', 'close:colour=red'], /'colour' is not one of the fields/],
  ])('refuses the state form %j and writes nothing', (args, message) => {
    const result = run(dir, args);
    expect(result.stderr).toMatch(message);
    expect(result.status).toBe(2);
    untouched();
  });

  it.each([
    [['notes', 'pinned:boolean=maybe'], /default 'maybe' is not true or false/],
    [['notes', 'title:string', 'n:integer=1.5'], /default '1.5' is not a 32-bit integer/],
    [['notes', 'title:string', 'n:integer', '--search', 'n'], /'n' \(integer\) is not a string or text field/],
    [['notes', 'title:string', '--action', 'archive:title'], /'title' is not an optional datetime/],
    [
      ['notes', 'title:string', '--action', 'Archive'],
      /expected <action>:<datetime field> or <action>:<field>=<value>/,
    ],
  ])('refuses %j (defaults, search, actions) and writes nothing', (args, message) => {
    const result = run(dir, args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    untouched();
  });

  it.each([
    [['notes', 'nothing', '--default', 'x'], /'nothing' is not a field of notes/],
    [['notes', 'pinned', '--default', 'maybe'], /default 'maybe' is not true or false/],
    [['notes', 'pinned', '--search'], /'pinned' \(boolean\) is not a string or text field/],
    [['notes', 'pinned'], /nothing to change/],
    [['notes', 'flag:boolean?', '--default', 'true'], /a new field's default goes after =/],
  ])('new:field refuses %j and writes nothing', (args, message) => {
    expect(run(dir, ['notes', 'title:string', 'pinned:boolean?']).status).toBe(0);
    const before = readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8');
    const result = run(dir, args, 'field');
    expect(result.stderr).toMatch(message);
    expect(result.status).toBe(2);
    expect(readFileSync(path.join(dir, 'src/modules/notes/resource.ts'), 'utf8')).toBe(before);
  });
});
