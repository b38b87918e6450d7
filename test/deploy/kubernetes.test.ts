import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { durationSeconds, policyViolations, type KubeObject } from '../../scripts/kubernetes/policy';
import { skipNotice } from '../support/skip-notice';

// deploy/kubernetes: every overlay renders and passes the policy; each policy rule, broken on purpose,
// is reported; the schema pass (kubernetes-models, an ES module: run through the CLI) catches a wrong
// type and a misspelt field.

const root = join(__dirname, '../..');
const kubectl = spawnSync(process.env.KUBECTL || 'kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!kubectl)
  skipNotice('SKIPPED: Kubernetes manifests: kubectl is not installed (apt-get install -y kubernetes-client)');
const describeWithKubectl = kubectl ? describe : describe.skip;

const overlays = readdirSync(join(root, 'deploy/kubernetes/overlays')).map(
  (name) => `deploy/kubernetes/overlays/${name}`,
);
const renders = new Map<string, string>();
/** Rendered on first use (a skipped suite's body still runs, and must not call a missing kubectl). */
const render = (dir: string) => {
  if (!renders.has(dir))
    renders.set(
      dir,
      execFileSync(process.env.KUBECTL || 'kubectl', ['kustomize', join(root, dir)], { encoding: 'utf8' }),
    );
  return renders.get(dir) ?? '';
};
const parse = (text: string) => parseAllDocuments(text).map((document) => document.toJS() as KubeObject);

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- mutating parsed YAML in place
const find = (objects: KubeObject[], kind: string) => objects.find((o) => o.kind === kind) as Any;
const apiContainer = (objects: KubeObject[]) => find(objects, 'Deployment').spec.template.spec.containers[0] as Any;

test('service durations are read as the service reads them', () => {
  // The service reads a bare number as seconds and has no `ms` unit (src/config/duration.ts).
  expect([
    durationSeconds('5s'),
    durationSeconds('500ms'),
    durationSeconds('2m'),
    durationSeconds('1500'),
    durationSeconds('0'),
    durationSeconds('soon'),
  ]).toEqual([5, NaN, 120, 1500, 0, NaN]);
});

describeWithKubectl('deploy/kubernetes overlays', () => {
  test.each(overlays)('%s renders a release that passes the policy', (dir) => {
    const objects = parse(render(dir));
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Job',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Service',
    ]);
    expect(policyViolations(objects)).toEqual([]);
  });

  const breakages: [string, (objects: KubeObject[]) => void, RegExp][] = [
    ['no readiness probe', (o) => delete apiContainer(o).readinessProbe, /readinessProbe must GET \/health\/ready/],
    [
      'liveness on the wrong path',
      (o) => (apiContainer(o).livenessProbe.httpGet.path = '/health/ready'),
      /livenessProbe must GET \/health\/live/,
    ],
    ['no memory limit', (o) => delete apiContainer(o).resources.limits.memory, /resources\.limits\.memory is not set/],
    [
      'root allowed',
      (o) => (find(o, 'Deployment').spec.template.spec.securityContext.runAsNonRoot = false),
      /api: runAsNonRoot must be true/,
    ],
    [
      'writable root filesystem',
      (o) => (find(o, 'Job').spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = false),
      /migrate: readOnlyRootFilesystem must be true/,
    ],
    [
      'service-account token mounted',
      (o) => delete find(o, 'Deployment').spec.template.spec.automountServiceAccountToken,
      /automountServiceAccountToken must be false/,
    ],
    [
      'grace period below the drain',
      (o) => (find(o, 'Deployment').spec.template.spec.terminationGracePeriodSeconds = 20),
      /terminationGracePeriodSeconds 20 must exceed .* \(25 s\)/,
    ],
    ['no preStop pause', (o) => delete apiContainer(o).lifecycle, /needs a preStop pause/],
    [
      'migrations at start-up',
      (o) => (find(o, 'ConfigMap').data.MIGRATE_ON_START = 'true'),
      /MIGRATE_ON_START must be false/,
    ],
    ['too few replicas', (o) => (find(o, 'Deployment').spec.replicas = 1), /1 replicas, at least 3/],
    [
      'a committed Secret',
      (o) => o.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'koa-api-service' } }),
      /Secrets are created outside Git/,
    ],
    ['no migration Job', (o) => o.splice(o.indexOf(find(o, 'Job')), 1), /no Job runs db-migrate/],
    [
      'PDB selecting nothing',
      (o) => (find(o, 'PodDisruptionBudget').spec.selector.matchLabels = { app: 'other' }),
      /no PodDisruptionBudget covers its pods/,
    ],
    [
      'Service selecting the Job too',
      (o) => delete find(o, 'Service').spec.selector['app.kubernetes.io/component'],
      /selects the pods of Job/,
    ],
    [
      'image without a tag',
      (o) => (apiContainer(o).image = 'registry.example.com/koa-api-service'),
      /needs a fixed tag or digest/,
    ],
  ];

  test.each(breakages)('reports %s', (_name, breakIt, message) => {
    const objects = parse(render(overlays[0]));
    breakIt(objects);
    expect(policyViolations(objects).join('\n')).toMatch(message);
  });

  test('the validator CLI passes the overlays and fails a wrong type and a misspelt field', () => {
    const tsx = join(root, 'node_modules/.bin/tsx');
    const ok = spawnSync(tsx, ['scripts/kubernetes/validate.ts'], { cwd: root, encoding: 'utf8' });
    expect(ok.stdout).toMatch(/^ok {3}.*pass schema validation and policy$/m);
    expect(ok.status).toBe(0);

    const objects = parse(render(overlays[0]));
    find(objects, 'Deployment').spec.replicas = 'three';
    const container = apiContainer(objects);
    container.readinessprobe = container.readinessProbe;
    const dir = mkdtempSync(join(tmpdir(), 'kube-'));
    try {
      writeFileSync(join(dir, 'bad.yaml'), objects.map((o) => stringify(o)).join('---\n'));
      const bad = spawnSync(tsx, ['scripts/kubernetes/validate.ts', '--file', join(dir, 'bad.yaml')], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(bad.status).toBe(1);
      expect(bad.stdout).toMatch(/schema: Deployment\/koa-api-service: data\/spec\/replicas must be integer/);
      expect(bad.stdout).toMatch(/'"readinessprobe"' does not exist in type 'IContainer'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
