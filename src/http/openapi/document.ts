import type { MountedRoute } from '../routing/mount';
import type { JsonSchema } from '../routing/route';
import { baseComponents } from './components';
import { derivedOperationId, describeOperation, openApiPath } from './operation';
import type { PackageInfo } from './package-info';

export interface DocumentOptions {
  /** info.title, info.version and info.description. */
  package: PackageInfo;
  /** PUBLIC_URL: the one server of the document. Without it, `/`: the host that served the document. */
  publicUrl: string | undefined;
  /** The per-user request budget or turns are on (USER_RATE_LIMIT_MAX or USER_CONCURRENCY_MAX > 0): their 429 and the (optional) counters on authenticated routes. */
  requestBudget: boolean;
}

export type OpenApiDocument = JsonSchema & { paths: Record<string, Record<string, JsonSchema>> };

const SYSTEM_TAG = { name: 'system', description: 'The welcome endpoint and the health probes' };

/**
 * The OpenAPI 3.1 document of every mounted route, built once at start-up (and by `npm run openapi`).
 * Fails, naming the routes, when two operations would share an operationId or a route names a security
 * scheme its module does not define.
 */
export function buildOpenApiDocument(routes: readonly MountedRoute[], options: DocumentOptions): OpenApiDocument {
  const components = baseComponents();
  const tags = [SYSTEM_TAG];
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Map<string, string>();

  for (const route of routes) {
    const { module, definition } = route;
    if (module && !tags.some((tag) => tag.name === module.name))
      tags.push({
        name: module.name,
        description: module.description ?? `The routes of the ${module.name} module, under /api/${module.name}`,
      });
    Object.assign(components.securitySchemes, module?.securitySchemes);
    for (const scheme of definition.security ?? []) {
      if (!module?.securitySchemes?.[scheme])
        throw new Error(`${route.where}: security names '${scheme}', which its module does not define`);
    }
    const operationId = definition.operationId ?? derivedOperationId(definition.method, route.path);
    const clash = operationIds.get(operationId);
    if (clash) throw new Error(`${route.where}: operationId '${operationId}' is already used by ${clash}`);
    operationIds.set(operationId, route.where);
    (paths[openApiPath(route.path)] ??= {})[definition.method.toLowerCase()] = describeOperation(
      route,
      operationId,
      options.requestBudget,
    );
  }

  // A framework header that every operation states inline (as always sent) is referred to nowhere: left out.
  const referenced = JSON.stringify(paths);
  components.headers = Object.fromEntries(
    Object.entries(components.headers).filter(([name]) => referenced.includes(`"#/components/headers/${name}"`)),
  );

  return {
    openapi: '3.1.0',
    info: {
      title: options.package.name,
      version: options.package.version,
      ...(options.package.description ? { description: options.package.description } : {}),
      ...(options.package.license
        ? { license: { name: options.package.license, identifier: options.package.license } }
        : {}),
    },
    servers: [{ url: options.publicUrl ?? '/' }],
    tags: tags.map((tag) => (tag.description ? tag : { name: tag.name })),
    paths,
    components,
  };
}
