import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { policyViolations, type KubeObject } from './policy';
import { schemaProblems } from './schema';

// Offline check of deploy/kubernetes (CI: scripts/ci/kubernetes.sh):
//   npx tsx scripts/kubernetes/validate.ts [overlay dir …]    (default: every deploy/kubernetes/overlays/*)
//   npx tsx scripts/kubernetes/validate.ts --file rendered.yaml
// Each overlay is rendered with `kubectl kustomize` (KUBECTL overrides the binary); every object must pass
// schema validation (schema.ts) and the release must pass the policy (policy.ts). Exit 0 when all pass.

const root = resolve(__dirname, '../..');

function render(dir: string): string {
  return execFileSync(process.env.KUBECTL || 'kubectl', ['kustomize', dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

function parse(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length) throw new Error(`unreadable YAML: ${document.errors[0].message}`);
      return document.toJS() as KubeObject | null;
    })
    .filter((object): object is KubeObject => object !== null);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const releases: { name: string; yaml: string }[] = [];
  if (args[0] === '--file') releases.push({ name: args[1], yaml: readFileSync(args[1], 'utf8') });
  else {
    const overlays = join(root, 'deploy/kubernetes/overlays');
    const dirs = args.length ? args : readdirSync(overlays).map((name) => join(overlays, name));
    for (const dir of dirs) releases.push({ name: dir, yaml: render(dir) });
  }
  let failed = 0;
  for (const { name, yaml } of releases) {
    const objects = parse(yaml);
    const problems = [
      ...(await schemaProblems(objects)).map((p) => `schema: ${p}`),
      ...policyViolations(objects).map((p) => `policy: ${p}`),
    ];
    const kinds = objects.map((o) => o.kind).join(', ');
    if (problems.length) {
      failed += 1;
      console.log(`FAIL ${name}: ${objects.length} objects (${kinds})\n  ${problems.join('\n  ')}`);
    } else console.log(`ok   ${name}: ${objects.length} objects (${kinds}) pass schema validation and policy`);
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
