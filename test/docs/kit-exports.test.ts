import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import * as kitModule from '../../src/modules/kit';

// Every type the module docs name is importable from the kit (src/modules/kit.ts): a reader following
// docs/modules.md or docs/custom-routes.md never reaches into src/http or src/stores for one.

const root = join(__dirname, '../..');
const kit = readFileSync(join(root, 'src/modules/kit.ts'), 'utf8');

/** The names exported as types or interfaces anywhere under src/http/routing and src/stores/kit. */
function kitLayerTypes(): Set<string> {
  const found = execFileSync(
    'grep',
    ['-rhoE', 'export (type|interface) [A-Z][A-Za-z]+', 'src/http/routing', 'src/stores/kit'],
    { cwd: root, encoding: 'utf8' },
  );
  return new Set(
    found
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ').at(-1)!),
  );
}

describe('the kit exports the types its docs use', () => {
  it.each(['docs/modules.md', 'docs/custom-routes.md'])('%s', (doc) => {
    // Code only: fenced samples and inline spans (prose says "JSON Schema", a sample says `Schema`).
    const code = [...readFileSync(join(root, doc), 'utf8').matchAll(/```[\s\S]*?```|`[^`\n]+`/g)]
      .map((match) => match[0])
      .join('\n');
    const named = new Set([...code.matchAll(/\b([A-Z][A-Za-z]+)\b/g)].map((match) => match[1]!));
    const types = kitLayerTypes();
    const missing = [...named].filter((name) => types.has(name) && !new RegExp(`\\b${name}\\b`).test(kit));
    expect(missing).toEqual([]);
  });
});

describe("docs/custom-routes.md: the error helpers' signatures", () => {
  it('states each helper as the kit exports it: its parameters and their defaults', () => {
    const exported = kitModule as unknown as Record<string, unknown>;
    const doc = readFileSync(join(root, 'docs/custom-routes.md'), 'utf8');
    const rows = [...doc.matchAll(/^ {2}\| `([a-zA-Z]+)\(([^`]*)\)` \|/gm)].map((match) => ({
      name: match[1]!,
      parameters: match[2]!,
    }));
    expect(rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(['notFound', 'conflict', 'forbidden', 'unauthorized', 'badRequest', 'unprocessable']),
    );
    for (const { name, parameters } of rows) {
      const helper = exported[name];
      expect([name, typeof helper]).toEqual([name, 'function']);
      // The compiled source keeps the names and defaults; the doc's types are what TypeScript checks.
      const compiled = /^\(([^)]*)\)/.exec(String(helper))![1]!.replace(/\s+/g, ' ');
      const stated = parameters.replace(/:\s*[^=]+?(?=(\s=|$))/g, '').replace(/\s+/g, ' ');
      expect([name, stated]).toEqual([name, compiled]);
    }
  });
});
