// The production rules for the rendered Kubernetes objects (docs/operations.md, "Kubernetes"), checked by
// scripts/kubernetes/validate.ts after schema validation. Pure functions over plain objects, so a test can
// break each rule on purpose and see it reported.
import { parseDurationSeconds } from '../../src/config/duration';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  [key: string]: unknown;
};
type Container = {
  name?: string;
  image?: string;
  command?: string[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: { httpGet?: { path?: string } };
  livenessProbe?: { httpGet?: { path?: string } };
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds?: number } } };
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
};
type PodSpec = {
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers?: Container[];
};
type PodTemplate = { metadata?: { labels?: Record<string, string> }; spec?: PodSpec };

const MIN_REPLICAS = 3;
const at = (object: KubeObject) => `${object.kind}/${object.metadata?.name}`;
const spec = (object: KubeObject) => (object.spec ?? {}) as Record<string, unknown>;
const template = (object: KubeObject) => (spec(object).template ?? {}) as PodTemplate;
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

/** Seconds in a service duration setting, read by the service's own parser (`10s`, `2m`, a bare number of seconds; `0`: none). */
export function durationSeconds(value: string | undefined): number {
  const text = (value ?? '0').trim();
  if (/^0+[smhd]?$/.test(text)) return 0;
  return parseDurationSeconds(text) ?? NaN;
}

/** A container's environment as the kubelet would assemble it: ConfigMaps named in envFrom, then env. */
function environment(container: Container, objects: KubeObject[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const source of container.envFrom ?? []) {
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata?.name === source.configMapRef?.name);
    for (const [key, value] of Object.entries((map?.data ?? {}) as Record<string, string>)) env.set(key, value);
  }
  for (const { name, value } of container.env ?? []) if (value !== undefined) env.set(name, value);
  return env;
}

function preStopSeconds(container: Container): number {
  const { exec, sleep } = container.lifecycle?.preStop ?? {};
  if (sleep?.seconds !== undefined) return sleep.seconds;
  const command = exec?.command ?? [];
  return command[0] === 'sleep' ? Number(command[1]) : NaN;
}

function podRules(object: KubeObject, objects: KubeObject[], problems: string[]): void {
  const pod = template(object).spec ?? {};
  if (pod.automountServiceAccountToken !== false)
    problems.push(`${at(object)}: automountServiceAccountToken must be false`);
  for (const container of pod.containers ?? []) {
    const where = `${at(object)} container ${container.name}`;
    const security = container.securityContext ?? {};
    if ((security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true)
      problems.push(`${where}: runAsNonRoot must be true`);
    if ((security.runAsUser ?? pod.securityContext?.runAsUser) === 0) problems.push(`${where}: runs as uid 0`);
    if (security.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem must be true`);
    if (security.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation must be false`);
    if (!security.capabilities?.drop?.includes('ALL')) problems.push(`${where}: capabilities must drop ALL`);
    for (const kind of ['requests', 'limits'] as const) {
      for (const resource of ['cpu', 'memory']) {
        if (container.resources?.[kind]?.[resource] === undefined)
          problems.push(`${where}: resources.${kind}.${resource} is not set`);
      }
    }
    if (!container.image || !/:[\w.-]+$|@sha256:/.test(container.image) || container.image.endsWith(':latest')) {
      problems.push(`${where}: image ${container.image} needs a fixed tag or digest`);
    }
    for (const source of container.envFrom ?? []) {
      const name = source.configMapRef?.name;
      if (name && !objects.some((o) => o.kind === 'ConfigMap' && o.metadata?.name === name))
        problems.push(`${where}: ConfigMap ${name} is not part of the release`);
    }
    if (object.kind !== 'Deployment') continue;
    if (container.readinessProbe?.httpGet?.path !== '/health/ready')
      problems.push(`${where}: readinessProbe must GET /health/ready`);
    if (container.livenessProbe?.httpGet?.path !== '/health/live')
      problems.push(`${where}: livenessProbe must GET /health/live`);
    const env = environment(container, objects);
    if (env.get('MIGRATE_ON_START') !== 'false')
      problems.push(`${where}: MIGRATE_ON_START must be false (the migration Job migrates)`);
    const pause = preStopSeconds(container);
    if (!(pause > 0)) problems.push(`${where}: needs a preStop pause (sleep) so endpoints drain before SIGTERM`);
    const drain =
      pause + durationSeconds(env.get('SHUTDOWN_DELAY')) + durationSeconds(env.get('SHUTDOWN_TIMEOUT') ?? '10s');
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    if (!(grace > drain))
      problems.push(
        `${where}: terminationGracePeriodSeconds ${grace} must exceed preStop + SHUTDOWN_DELAY + SHUTDOWN_TIMEOUT (${drain} s)`,
      );
  }
}

/** Every rule broken by a release (the objects one overlay renders); empty when it may ship. */
export function policyViolations(objects: KubeObject[]): string[] {
  const problems: string[] = [];
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const jobs = objects.filter((o) => o.kind === 'Job');
  if (deployments.length === 0) problems.push('no Deployment');
  for (const secret of objects.filter((o) => o.kind === 'Secret'))
    problems.push(`${at(secret)}: Secrets are created outside Git, never rendered from it`);
  for (const workload of [...deployments, ...jobs]) podRules(workload, objects, problems);
  const podsOf = (name: unknown) => template(deployments.find((d) => d.metadata?.name === name) ?? {}).metadata?.labels;

  for (const deployment of deployments) {
    const labels = template(deployment).metadata?.labels;
    const replicas = Number(spec(deployment).replicas ?? 1);
    if (replicas < MIN_REPLICAS) problems.push(`${at(deployment)}: ${replicas} replicas, at least ${MIN_REPLICAS}`);
    const selects = (kind: string, selector: (o: KubeObject) => Record<string, string> | undefined) =>
      objects.some((o) => o.kind === kind && matches(selector(o), labels));
    if (!selects('Service', (o) => spec(o).selector as Record<string, string>))
      problems.push(`${at(deployment)}: no Service selects its pods`);
    if (
      !selects(
        'PodDisruptionBudget',
        (o) => (spec(o).selector as { matchLabels?: Record<string, string> })?.matchLabels,
      )
    )
      problems.push(`${at(deployment)}: no PodDisruptionBudget covers its pods`);
    if (
      !selects('NetworkPolicy', (o) => (spec(o).podSelector as { matchLabels?: Record<string, string> })?.matchLabels)
    )
      problems.push(`${at(deployment)}: no NetworkPolicy selects its pods`);
    const hpa = objects.find(
      (o) =>
        o.kind === 'HorizontalPodAutoscaler' &&
        (spec(o).scaleTargetRef as { name?: string })?.name === deployment.metadata?.name,
    );
    if (!hpa) problems.push(`${at(deployment)}: no HorizontalPodAutoscaler targets it`);
    else if (Number(spec(hpa).minReplicas ?? 1) < MIN_REPLICAS)
      problems.push(`${at(hpa)}: minReplicas below ${MIN_REPLICAS}`);
  }
  for (const service of objects.filter((o) => o.kind === 'Service')) {
    const selector = spec(service).selector as Record<string, string> | undefined;
    for (const job of jobs)
      if (matches(selector, template(job).metadata?.labels))
        problems.push(`${at(service)}: selects the pods of ${at(job)}`);
  }
  for (const pdb of objects.filter((o) => o.kind === 'PodDisruptionBudget')) {
    const selector = (spec(pdb).selector as { matchLabels?: Record<string, string> })?.matchLabels;
    if (!deployments.some((d) => matches(selector, podsOf(d.metadata?.name))))
      problems.push(`${at(pdb)}: selects no Deployment's pods`);
  }
  const migrates = jobs.some((job) =>
    (template(job).spec?.containers ?? []).some((c) => (c.command ?? []).join(' ').includes('db-migrate')),
  );
  if (!migrates) problems.push('no Job runs db-migrate');
  return problems;
}
