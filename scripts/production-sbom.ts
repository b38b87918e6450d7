// The CycloneDX SBOM of the production dependencies, on stdout (scripts/release.sh keeps it beside each
// release). `npm sbom --omit=dev` would be the obvious call, but npm 11 drops production packages that a dev
// tool also depends on (ajv, @sinclair/typebox, secure-json-parse… went missing), so the whole tree is listed
// and the components npm scopes `required` — the ones the production install holds — are kept, with the
// dependency graph cut to them. scripts/ci/release.sh checks every production dependency is listed.
import { execFileSync } from 'node:child_process';

interface Component {
  'bom-ref': string;
  scope?: string;
}
interface Sbom {
  components: Component[];
  dependencies?: { ref: string; dependsOn?: string[] }[];
}

const sbom = JSON.parse(
  execFileSync('npm', ['sbom', '--package-lock-only', '--sbom-format', 'cyclonedx'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  }),
) as Sbom;
const kept = new Set(
  sbom.components.filter((component) => component.scope === 'required').map((component) => component['bom-ref']),
);
const root = (sbom as unknown as { metadata?: { component?: { 'bom-ref'?: string } } }).metadata?.component?.[
  'bom-ref'
];
sbom.components = sbom.components.filter((component) => kept.has(component['bom-ref']));
sbom.dependencies = (sbom.dependencies ?? [])
  .filter((entry) => kept.has(entry.ref) || entry.ref === root)
  .map((entry) => ({ ...entry, dependsOn: (entry.dependsOn ?? []).filter((ref) => kept.has(ref)) }));
process.stdout.write(`${JSON.stringify(sbom, null, 2)}\n`);
