import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planColumnChange } from '../../scripts/new-module/column-change';
import { plan, planField, write } from '../../scripts/new-module/generate';
import type { PlannedFile } from '../../scripts/new-module/source-edits';
import { planIndexes } from '../../scripts/new-module/indexes';
import { planRemoval } from '../../scripts/new-module/remove';
import type { AnyResource } from '../../src/stores/kit/resource';

// The generator's edits on declarations written by hand: reformatted, fields and entries reordered, comments
// between entries, trailing commas here and none there, double-quoted imports. Every new:field form, new:indexes,
// new:module's registry edit and remove:module take them, keep the rest of the file as it was, and leave a
// declaration the kit loads. In process (the command line itself: new-module.test.ts).

const root = path.resolve(__dirname, '../..');

const NOTES = `// Notes, as a person formatted them.
import { defineResource, field } from "../kit";
import { createNotes } from "./migrations/0001-create-notes";

export const notesResource = defineResource({
  name: 'notes',
  table: 'notes',
  modelName: 'Note',
  // Oldest first.
  migrations: [
    createNotes
  ],
  sort: ['title'],
  filters: [
    'pinned', // the pinned ones
  ],
  fields: {
    // Shown in lists.
    title: field.string({
      caseInsensitive: true,
    }),
    pinned: field.boolean({ optional: true }),

    /* free text */
    body: field.text({ optional: true })
  }
})
`;

const CREATE_NOTES = `import { createResourceTable, type SqlMigration } from '../../kit';

export const createNotes: SqlMigration = {
  name: 'notes-0001-create-notes',
  up: (queryInterface) =>
    createResourceTable(queryInterface, 'notes', (c) => ({ ...c.string('title', { caseInsensitive: true }), ...c.boolean('pinned', { optional: true }), ...c.text('body', { optional: true }) }), {
      indexes: [['owner_id', 'title', 'id'], ['title', 'id'], ['owner_id', 'pinned', 'title', 'id'], ['owner_id', 'pinned', 'created_at', 'id']],
    }),
  down: (queryInterface) => queryInterface.dropTable('notes'),
};
`;

const TAGS = `import { defineResource, field } from '../kit';
import { createTags } from './migrations/0001-create-tags';
import { notesResource } from '../notes/resource';

export const tagsResource = defineResource({
  fields: {
    note: field.reference(() => notesResource, {
      onDelete: 'cascade',
    }),
    name: field.string(),
  },
  unique: [
    ['note', 'name'],
  ],
  name: 'tags', table: 'tags', modelName: 'Tag',
  filters: ['note'], sort: [],
  migrations: [createTags],
});
`;

const CREATE_TAGS = `import { createResourceTable, type SqlMigration } from '../../kit';

export const createTags: SqlMigration = {
  name: 'tags-0001-create-tags',
  up: (queryInterface) => createResourceTable(queryInterface, 'tags', (c) => ({ ...c.reference('note', 'notes', { onDelete: 'cascade' }), ...c.string('name') }), { unique: [['note', 'name']] }),
  down: (queryInterface) => queryInterface.dropTable('tags'),
};
`;

const REGISTRY = `import type { ModuleFactory } from '../services';
import { authModule } from './auth';
import { notesModule } from './notes';
import { tagsModule } from './tags';

export const modules: ModuleFactory[] = [
  authModule,
  // the notes and their tags
  notesModule,
  tagsModule,
];
`;

let dir: string;

function put(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
const apply = (files: PlannedFile[]) => write(dir, files);
const notes = () => read('src/modules/notes/resource.ts');

function remove(module: string): void {
  const { files, deleted } = planRemoval(dir, module);
  apply(files);
  for (const folder of deleted) rmSync(path.join(dir, folder), { recursive: true, force: true });
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'new-module-edits-'));
  // The scratch modules import the kit from the repository, as a module folder does.
  put('src/modules/kit.ts', `export * from '${root}/src/modules/kit';\n`);
  put('src/modules/index.ts', REGISTRY);
  put('src/modules/notes/resource.ts', NOTES);
  put('src/modules/notes/migrations/0001-create-notes.ts', CREATE_NOTES);
  put('src/modules/tags/resource.ts', TAGS);
  put('src/modules/tags/migrations/0001-create-tags.ts', CREATE_TAGS);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The declaration as the kit loads it. */
function loaded(module: string): AnyResource {
  let resource: AnyResource | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the scratch declaration, loaded as the service loads it
    const exported = require(path.join(dir, `src/modules/${module}/resource.ts`)) as Record<string, AnyResource>;
    resource = Object.values(exported)[0];
  });
  return resource!;
}

describe('the generator on a declaration formatted by hand', () => {
  it("new:field adds a field with --filter and --sort in each list's own layout, its comments and quotes kept", () => {
    apply(planField(dir, 'notes', 'priority:integer?', { filter: true, sort: ['priority', 'createdAt'] }));
    expect(notes()).toContain(
      '    /* free text */\n    body: field.text({ optional: true }),\n    priority: field.integer({ optional: true })\n  }',
    );
    expect(notes()).toContain("  filters: [\n    'pinned', // the pinned ones\n    'priority',\n  ],");
    expect(notes()).toContain("  sort: ['title', 'priority', 'createdAt'],");
    expect(notes()).toContain('  migrations: [\n    createNotes,\n    addPriority\n  ],');
    expect(notes()).toContain(
      'import { createNotes } from "./migrations/0001-create-notes";\nimport { addPriority } from \'./migrations/0002-add-priority\';\n',
    );
    expect(notes()).toContain('// Notes, as a person formatted them.\n');
    expect(Object.keys(loaded('notes').fields)).toEqual(['title', 'pinned', 'body', 'priority']);
  });

  it('new:indexes lists its migration after the others', async () => {
    apply(planField(dir, 'notes', 'priority:integer?', { sort: true }));
    const files = await planIndexes(dir, 'notes');
    expect(files.map((file) => file.path)).toEqual([
      'src/modules/notes/migrations/0003-add-list-indexes.ts',
      'src/modules/notes/resource.ts',
    ]);
    apply(files);
    expect(notes()).toContain('  migrations: [\n    createNotes,\n    addPriority,\n    addListIndexes0003\n  ],');
  });

  it("--default and --required / --optional edit the field's options, one line or several", () => {
    apply(planField(dir, 'notes', 'pinned', { default: 'true' }));
    expect(notes()).toContain('    pinned: field.boolean({ optional: true, default: true }),');
    apply(planColumnChange(dir, 'notes', 'pinned', { required: true }));
    expect(notes()).toContain('    pinned: field.boolean({ default: true }),');
    apply(planColumnChange(dir, 'notes', 'title', { required: false }));
    expect(notes()).toContain(
      '    // Shown in lists.\n    title: field.string({\n      optional: true,\n      caseInsensitive: true,\n    }),',
    );
    expect(loaded('notes').fields.title).toMatchObject({ optional: true, caseInsensitive: true });
  });

  it('--rename renames the field and every list naming it; --drop takes it out of the fields and lists with its comment', () => {
    apply(planColumnChange(dir, 'notes', 'title', { rename: 'heading' }));
    expect(notes()).toContain('    // Shown in lists.\n    heading: field.string({');
    expect(notes()).toContain("  sort: ['heading'],");
    apply(planColumnChange(dir, 'notes', 'pinned', { drop: true }));
    expect(notes()).not.toMatch(/pinned:|'pinned'|the pinned ones/);
    expect(notes()).toContain('  filters: [],');
    expect(notes()).toContain('    }),\n    /* free text */\n    body: field.text({ optional: true })\n  }');
    expect(Object.keys(loaded('notes').fields)).toEqual(['heading', 'body']);
  });

  it('--drop of a reference removes its unique key, its list entries and the import nothing uses any more', () => {
    apply(planColumnChange(dir, 'tags', 'note', { drop: true }));
    const tags = read('src/modules/tags/resource.ts');
    expect(tags).not.toContain('notesResource');
    expect(tags).not.toContain('unique');
    expect(tags).toContain(
      "  fields: {\n    name: field.string(),\n  },\n  name: 'tags', table: 'tags', modelName: 'Tag',\n  filters: [], sort: [],\n",
    );
  });

  it("--action and --search add their entries before the migrations, and the action's field last", () => {
    apply(planField(dir, 'notes', 'body', { search: true }));
    apply(planField(dir, 'notes', undefined, { actions: ['archive:archivedAt'] }));
    expect(notes()).toContain(
      "  modelName: 'Note',\n  search: ['body'],\n  actions: {\n    archive: { access: 'owner-or-admin', set: { archivedAt: 'now' }, unless: 'archivedAt' },\n  },\n  // Oldest first.\n  migrations: [",
    );
    expect(notes()).toContain(
      '    body: field.text({ optional: true }),\n    archivedAt: field.datetime({ optional: true, readOnly: true })\n  }',
    );
    const resource = loaded('notes');
    expect(resource.search).toEqual(['body']);
    expect(Object.keys(resource.actions ?? {})).toEqual(['archive']);
  });

  it('new:module appends to a registry laid out one module a line; remove:module takes it out again', () => {
    apply(plan(dir, 'lists', ['name:string'], { unique: [], filter: [], sort: [], search: [], action: [] }));
    expect(read('src/modules/index.ts')).toContain("import { listsModule } from './lists';\n\nexport const modules");
    expect(read('src/modules/index.ts')).toContain(
      '  // the notes and their tags\n  notesModule,\n  tagsModule,\n  listsModule,\n];',
    );
    remove('lists');
    expect(read('src/modules/index.ts')).toContain('  notesModule,\n  tagsModule,\n  removedModules,\n];');
    expect(read('src/modules/index.ts')).not.toContain('listsModule');
  });
});

describe('remove:module of modules that point at each other', () => {
  it('refuses while another module points at it, naming the module to remove first (or the field to drop)', () => {
    expect(() => planRemoval(dir, 'notes')).toThrow(
      "module tags (note) points at 'notes': remove it first: npm run remove:module -- tags; or keep tags and drop its reference: npm run new:field -- tags note --drop",
    );
  });

  it('names every module in the way, in the order to remove them', () => {
    put(
      'src/modules/taggings/resource.ts',
      TAGS.replace(/tags/g, 'taggings')
        .replace(/Tag/g, 'Tagging')
        .replace('note: field.reference(() => notesResource', 'tag: field.reference(() => tagsResource')
        .replace(
          "import { notesResource } from '../notes/resource';",
          "import { tagsResource } from '../tags/resource';",
        ),
    );
    expect(() => planRemoval(dir, 'notes')).toThrow(
      'remove these first, in this order: npm run remove:module -- taggings; npm run remove:module -- tags;',
    );
  });

  it('records which tables the history points at, and the removed store depends on the live modules among them', () => {
    remove('tags');
    expect(read('src/modules/removed/tags/index.ts')).toContain(
      "  table: 'tags',\n  references: ['notes'],\n  migrations: [createTags],\n  removal: removeTags,\n",
    );
    expect(read('src/modules/removed/index.ts')).toContain("import { notesResource } from '../notes/resource';");
    expect(read('src/modules/removed/index.ts')).toContain('  dependsOn: [resourceStore(notesResource)],');
    // notes removed too: its own history builds the table, nothing live is depended on.
    remove('notes');
    const index = read('src/modules/removed/index.ts');
    expect(index).toContain('migrations: removedMigrations([tagsHistory, notesHistory]),');
    expect(index).not.toContain('dependsOn');
    expect(index).not.toContain('../notes/resource');
  });

  it("a module created again under a removed one's name numbers its migrations after that history", () => {
    remove('tags');
    apply(plan(dir, 'tags', ['name:string'], { unique: [], filter: [], sort: [], search: [], action: [] }));
    expect(read('src/modules/tags/resource.ts')).toContain(
      "import { createTags } from './migrations/0003-create-tags';",
    );
    expect(read('src/modules/tags/migrations/0003-create-tags.ts')).toContain("name: 'tags-0003-create-tags',");
  });
});
