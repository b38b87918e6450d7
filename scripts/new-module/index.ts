// npm run new:module -- <name> <field>:<type>[?] ... [--dry-run]
// Writes a complete CRUD module under src/modules/<name>/ (routes, schemas, store interface, relational and
// MongoDB implementations, migration), its tests under test/modules/<name>/, and registers it in
// src/modules/index.ts. Refuses a bad name, a reserved or existing module, or a bad field spec, writing
// nothing. Exit 0 on success, 2 on a refused request.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { plan, write } from './generate';
import { FIELD_TYPES, SpecError } from './spec';

const USAGE = `usage: npm run new:module -- <name> <field>:<type>[?] ... [--dry-run]
  types: ${FIELD_TYPES.join(', ')}; ? marks an optional field
  e.g.   npm run new:module -- notes title:string body:text? pinned:boolean?`;

function main(argv: string[]): number {
  const dryRun = argv.includes('--dry-run');
  const unknownOption = argv.find((argument) => argument.startsWith('-') && argument !== '--dry-run');
  const [name, ...fields] = argv.filter((argument) => argument !== '--dry-run');
  try {
    if (unknownOption) throw new SpecError(`unknown option ${unknownOption}`);
    const files = plan(process.cwd(), name, fields);
    if (dryRun) {
      process.stdout.write(`would write (dry run, nothing written):\n${files.map((f) => `  ${f.edit ? 'edit  ' : 'create'} ${f.path}`).join('\n')}\n`);
      return 0;
    }
    write(process.cwd(), files);
    // The committed API document gains the new routes (make lint fails while it is stale).
    if (existsSync('src/cli/openapi.ts')) {
      const openapi = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'src/cli/openapi.ts'], { stdio: 'inherit' });
      if (openapi.status !== 0) process.stderr.write('new:module: the module is written, but `npm run openapi` failed: run it after fixing the error above\n');
    }
    process.stdout.write(`${files.map((f) => `${f.edit ? 'edited ' : 'created'} ${f.path}`).join('\n')}\nnext: make test (its tests are in test/modules/${name}/)\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    process.stderr.write(`new:module: ${error.message}; nothing was written\n${USAGE}\n`);
    return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
