import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import ts from 'typescript';
import type { ModuleFactory } from '../../src/services';
import { DocumentConformance } from '../support/openapi-conformance';
import { buildTestApp, type TestApp } from '../support/test-app';

// The guide's module written by hand (docs/modules.md), taken from the guide itself: it must type-check under the project's
// compiler settings, and it must do what its comments say on the real app.

const ROOT = join(__dirname, '..', '..');
const MARKER = '// src/modules/notes/notes-module.ts\n';
/** Written inside the repository so its imports resolve; git-ignored and removed afterwards. */
const DIR = join(ROOT, 'test', '.readme-example', 'modules', 'notes');
const FILE = join(DIR, 'notes-module.ts');

function exampleSource(): string {
  const readme = readFileSync(join(ROOT, 'docs', 'modules.md'), 'utf8'); // the module written by hand, in the guide
  const start = readme.indexOf(MARKER);
  if (start < 0) throw new Error(`docs/modules.md has no block starting with ${MARKER.trim()}`);
  const code = readme.slice(start, readme.indexOf('\n```', start));
  // From src/modules/notes/ the example imports '../../http/…'; from here that is '../../../../src/http/…'.
  return code.replace(/from '\.\.\/\.\.\//g, "from '../../../../src/");
}

describe("docs/modules.md's module example", () => {
  let t: TestApp;
  const api = () => request(t.app.callback());
  const signedIn = new Map<string, Promise<{ id: string; authorization: string }>>();
  /** One user per role, signed in once. */
  const bearer = async (role: string) => {
    if (!signedIn.has(role)) signedIn.set(role, t.signIn(role));
    return { Authorization: (await signedIn.get(role)!).authorization };
  };

  beforeAll(async () => {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(FILE, exampleSource());
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file written just now, through jest's transform
    const { notesModule } = require(FILE) as { notesModule: ModuleFactory };
    t = await buildTestApp({ env: { USER_STORE: 'database' }, modules: [notesModule] });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(join(ROOT, 'test', '.readme-example'), { recursive: true, force: true });
  });

  it("type-checks with the project's compiler settings", () => {
    const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
    const program = ts.createProgram([FILE], { ...options, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
  });

  it('does what its comments say, and its answers match the document', async () => {
    const conformance = new DocumentConformance((await api().get('/openapi.json').expect(200)).body);
    const check = (method: string, path: string, res: request.Response) =>
      conformance.expectConforms(method, path, res);

    check('GET', '/api/notes', await api().get('/api/notes').expect(401));
    check(
      'POST',
      '/api/notes',
      await api()
        .post('/api/notes')
        .set(await bearer('user'))
        .send({ title: 'x' })
        .expect(403),
    );
    const created = await api()
      .post('/api/notes')
      .set(await bearer('editor'))
      .send({ title: 'First' })
      .expect(201);
    check('POST', '/api/notes', created);
    expect(created.body.data).toEqual({ id: 1, title: 'First', text: '', author: (await signedIn.get('editor')!).id });
    check(
      'POST',
      '/api/notes',
      await api()
        .post('/api/notes')
        .set(await bearer('editor'))
        .send({ title: '' })
        .expect(422),
    );
    await api()
      .post('/api/notes')
      .set(await bearer('editor'))
      .send({ title: 'Second', text: 'more' })
      .expect(201);

    const list = await api()
      .get('/api/notes?limit=1')
      .set(await bearer('user'))
      .expect(200);
    check('GET', '/api/notes', list);
    expect(list.body.data.notes.map((note: { title: string }) => note.title)).toEqual(['Second']);
    const refused = await api()
      .get('/api/notes?sort=x')
      .set(await bearer('user'))
      .expect(422);
    expect(refused.body.errors).toEqual([{ field: 'query.sort', message: 'is not allowed' }]);
    check('GET', '/api/notes', refused);

    check(
      'GET',
      '/api/notes/{id}',
      await api()
        .get('/api/notes/1')
        .set(await bearer('user'))
        .expect(200),
    );
    const bad = await api()
      .get('/api/notes/abc')
      .set(await bearer('user'))
      .expect(422);
    expect(bad.body.errors).toEqual([{ field: 'params.id', message: expect.any(String) }]);
    check(
      'GET',
      '/api/notes/{id}',
      await api()
        .get('/api/notes/9')
        .set(await bearer('user'))
        .expect(404),
    );
    check(
      'DELETE',
      '/api/notes/{id}',
      await api()
        .delete('/api/notes/1')
        .set(await bearer('admin'))
        .expect(204),
    );
    check(
      'DELETE',
      '/api/notes/{id}',
      await api()
        .delete('/api/notes/1')
        .set(await bearer('admin'))
        .expect(404),
    );
  });
});
