import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

// The servers under test run as plain JavaScript on plain `node`, as production runs `node dist/server.js`.
// A TypeScript loader in the measured process would change what is measured: tsx, for one, turns on
// source maps, which makes every `new Error()` (sequelize makes one per query) cost several times more.
// So the bench's own entries are transpiled here, file by file, into a scratch directory.

const ENTRIES = ['bench-server.ts', 'bench-module.ts', 'raw-server.ts', 'bare-koa-server.ts', 'hash-reference.ts'];

/** Writes <name>.js for each entry into `outDir`; type-only imports vanish, `./bench-module` stays relative. */
export function compileEntries(outDir: string): void {
  for (const entry of ENTRIES) {
    const source = readFileSync(join(__dirname, entry), 'utf8');
    const { outputText, diagnostics } = ts.transpileModule(source, {
      fileName: entry,
      reportDiagnostics: true,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2023,
        esModuleInterop: true,
        isolatedModules: true,
      },
    });
    if (diagnostics?.length) {
      throw new Error(`${entry}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n')}`);
    }
    writeFileSync(join(outDir, entry.replace(/\.ts$/, '.js')), outputText);
  }
}
