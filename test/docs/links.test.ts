import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// Every relative link in README.md and docs/ resolves: the file or folder exists, and a `#fragment` names a
// heading of the target (GitHub's anchor spelling). Links to the web are not followed.

const ROOT = resolve(__dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => slug(match[1])));
}

function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((target) => !/^[a-z]+:/i.test(target));
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

describe('relative links in README and docs', () => {
  it.each(files.map((file) => [relative(ROOT, file), file]))('%s: every link resolves', (_name, file) => {
    const broken: string[] = [];
    for (const target of links(file)) {
      const [path, fragment] = target.split('#');
      const destination = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
      if (!existsSync(destination)) broken.push(`${target} (no such file)`);
      else if (fragment && destination.endsWith('.md') && !anchors(destination).has(fragment))
        broken.push(`${target} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (the README links to docs/)', () => {
    expect(links(join(ROOT, 'README.md'))).toEqual(
      expect.arrayContaining(['docs/configuration.md', 'docs/decisions/']),
    );
  });
});

// Comments and scripts point at a section by its heading: `(docs/modules.md, "Removing a module")`,
// or a README section likewise. Each must still be a heading of that file (a renamed section leaves the pointer stale).
const SECTION_POINTER =
  /(README(?:\.md)?|docs\/[a-z0-9/_-]+\.md),?[ \t]*(?:\n[ \t]*(?:\/\/|#|\*)?[ \t]*)?\(?"([^"\n]+)"/g;

function headings(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => match[1].replace(/[`*]/g, '').trim().toLowerCase());
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|sh|md|yml)$/.test(name) ? [path] : [];
  });
}

describe('section pointers in code, scripts and docs', () => {
  const pointing = [
    ...['src', 'scripts', 'test', 'docs', '.ci'].flatMap((dir) => sourceFiles(join(ROOT, dir))),
    join(ROOT, 'README.md'),
    join(ROOT, 'Makefile'),
  ];

  it('name headings that exist (a prefix of the heading is enough)', () => {
    const stale: string[] = [];
    for (const file of pointing) {
      for (const [, document, section] of readFileSync(file, 'utf8').matchAll(SECTION_POINTER)) {
        const target = join(ROOT, document === 'README' ? 'README.md' : document);
        const wanted = section.replace(/[`*]/g, '').toLowerCase();
        if (!existsSync(target) || !headings(target).some((heading) => heading.startsWith(wanted)))
          stale.push(`${relative(ROOT, file)}: ${document} "${section}"`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('finds the pointers it checks', () => {
    expect(readFileSync(join(ROOT, 'src/modules/index.ts'), 'utf8').match(SECTION_POINTER)).not.toBeNull();
  });
});
