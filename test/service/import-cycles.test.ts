import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

// "Imports point downwards; no cycles" (docs/architecture.md), held for every file under src/: the static
// import and export declarations, type-only ones included (a type cycle still ties two files' designs together).
// A `require()` made at run time is left out: that is how an optional dependency loads only when configured.

const SRC = join(__dirname, '..', '..', 'src');
const STATIC_IMPORT = /^\s*(?:import|export)\s[^;'"]*?from\s+'(\.{1,2}\/[^']+)'/gm;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = join(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(STATIC_IMPORT)].flatMap((match) => resolveImport(file, match[1]!) ?? []);
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle a depth-first walk meets, as the files around it (the first file repeated at the end). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target]);
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('imports under src/', () => {
  it('reads the imports it checks (the walk would pass vacuously if it found none)', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    const app = graph.get(join(SRC, 'http', 'app.ts'))!.map((file) => relative(SRC, file));
    expect(app).toEqual(expect.arrayContaining([join('http', 'api.ts'), 'services.ts']));
  });

  it('form no cycle, type-only imports included', () => {
    const cycles = cyclesOf(importGraph()).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });
});
