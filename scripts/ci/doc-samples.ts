// Every TypeScript sample in README.md and docs/ must compile. Each ```ts block starts with a comment
// naming the file it belongs in (`// src/modules/notes/store.ts`); it is written there in a scratch copy of
// the repository (beside an existing file of that name, as <name>.sample-N.ts, so the file's own imports
// resolve), and the copy is type-checked. Usage: tsx scripts/ci/doc-samples.ts <scratch-dir>
import { readdirSync, readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const [scratch] = process.argv.slice(2);
if (!scratch) throw new Error('usage: doc-samples.ts <scratch copy of the repository>');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownFiles(path.join(dir, entry.name))
      : entry.name.endsWith('.md')
        ? [path.join(dir, entry.name)]
        : [],
  );
}

const problems: string[] = [];
let written = 0;
for (const file of ['README.md', ...markdownFiles('docs')]) {
  const text = readFileSync(file, 'utf8');
  const blocks = [...text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)];
  blocks.forEach((block, index) => {
    const code = block[1] ?? '';
    const target = /^\/\/ ((?:src|test|scripts)\/[\w./-]+\.ts)\s*$/m.exec(code.split('\n')[0] ?? '')?.[1];
    if (!target) {
      problems.push(
        `${file}: TypeScript sample ${index + 1} does not start with a comment naming its file (// src/...ts)`,
      );
      return;
    }
    let destination = path.join(scratch, target);
    if (existsSync(destination)) destination = destination.replace(/\.ts$/, `.sample-${index + 1}.ts`);
    mkdirSync(path.dirname(destination), { recursive: true });
    writeFileSync(destination, code);
    written += 1;
  });
}
if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`doc samples: ${written} TypeScript sample(s) written into ${scratch}\n`);
