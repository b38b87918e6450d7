import { dirname, join } from 'node:path';
import ts from 'typescript';
import type { KubeObject } from './policy';

// Schema validation of rendered Kubernetes objects, offline, in two passes over the models that the
// npm package kubernetes-models generates from the Kubernetes OpenAPI document:
//  1. its validators (ajv, compiled from the OpenAPI schemas): types, formats, required fields, enums;
//  2. its TypeScript types, with every object compiled as a typed object literal: TypeScript rejects a
//     property the type does not declare, which the OpenAPI schemas do not (they allow unknown fields,
//     and an API server drops them), so a misspelt field (`readinessprobe`) fails here instead of being
//     silently ignored by the cluster.

/** kubernetes-models' module for an apiVersion and kind: `apps/v1` + `Deployment` → `kubernetes-models/apps/v1/Deployment`. */
function modelPath(object: KubeObject): string {
  return `kubernetes-models/${object.apiVersion}/${object.kind}`;
}

const label = (object: KubeObject) => `${object.kind}/${object.metadata?.name}`;

async function validatorProblems(objects: KubeObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    let Model: (new (data: unknown) => { validate(): void }) | undefined;
    try {
      // kubernetes-models is an ES module: loaded with import(), by apiVersion and kind.
      const module = (await import(modelPath(object))) as Record<string, new (data: unknown) => { validate(): void }>;
      Model = module[String(object.kind)];
    } catch {
      Model = undefined;
    }
    if (!Model) {
      problems.push(`${label(object)}: unknown apiVersion/kind ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${label(object)}: ${(error as Error).message}`);
    }
  }
  return problems;
}

function typeProblems(objects: KubeObject[]): string[] {
  // A virtual ES module beside this file, so that `kubernetes-models` resolves from the project's node_modules.
  const fileName = join(__dirname, 'rendered-objects.mts');
  const lines: string[] = [];
  const owner: KubeObject[] = [];
  objects.forEach((object, index) => {
    lines.push(`import type { I${object.kind} as T${index} } from '${modelPath(object)}';`);
    owner.push(object);
  });
  const firstObjectLine = lines.length;
  objects.forEach((object, index) => {
    for (const line of `export const o${index}: T${index} = ${JSON.stringify(object, null, 2)};`.split('\n')) {
      lines.push(line);
      owner.push(object);
    }
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === fileName ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (name === fileName ? source : readFile(name));
  const program = ts.createProgram([fileName], options, host);
  const file = program.getSourceFile(fileName);
  const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  return diagnostics.map((diagnostic) => {
    const line =
      diagnostic.start === undefined || !file ? -1 : file.getLineAndCharacterOfPosition(diagnostic.start).line;
    const object = owner[line];
    const where = object ? label(object) : dirname(fileName);
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    return line >= 0 && line < firstObjectLine
      ? `${where}: no model for ${object?.apiVersion} ${object?.kind} (${text})`
      : `${where}: ${text}`;
  });
}

/** Every schema problem of the objects; empty when all are valid. */
export async function schemaProblems(objects: KubeObject[]): Promise<string[]> {
  const problems = await validatorProblems(objects);
  return [...problems, ...typeProblems(objects)];
}
