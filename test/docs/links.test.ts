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
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
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
      else if (fragment && destination.endsWith('.md') && !anchors(destination).has(fragment)) broken.push(`${target} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (the README links to docs/)', () => {
    expect(links(join(ROOT, 'README.md'))).toEqual(expect.arrayContaining(['docs/configuration.md', 'docs/decisions/']));
  });
});
