import type { ModuleFactory, Services } from '../services';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
import { readPackageInfo } from './openapi/package-info';
import { declareRoutes, modulePrefix, type MountedRoute } from './routing/mount';
import type { ModuleDefinition } from './routing/route';
import { systemRoutes } from './system-routes';

/** Everything the service answers, as declared: the system routes and each module's, with their modules. */
export interface DeclaredApi {
  routes: MountedRoute[];
  modules: ModuleDefinition[];
  /** The OpenAPI 3.1 document of those routes. */
  document: OpenApiDocument;
}

/**
 * Builds the modules and checks every declaration (a bad one throws, naming the route), without Koa:
 * createApp mounts the result, `npm run openapi` writes its document.
 */
export function declareApi(services: Services, factories: readonly ModuleFactory[]): DeclaredApi {
  const routes = declareRoutes('', systemRoutes(services));
  const modules: ModuleDefinition[] = [];
  const prefixes = new Set<string>();
  for (const factory of factories) {
    const module = factory(services);
    const prefix = modulePrefix(module);
    if (prefixes.has(prefix)) throw new Error(`module '${module.name}' is registered twice`);
    prefixes.add(prefix);
    modules.push(module);
    routes.push(...declareRoutes(prefix, module.routes, module, (factory.stores?.length ?? 0) > 0));
  }
  // Built whether or not API_DOCS serves it, so a declaration the document cannot take fails everywhere alike.
  const document = buildOpenApiDocument(routes, {
    package: readPackageInfo(),
    publicUrl: services.config.publicUrl,
    requestBudget: services.config.userRateLimit.max > 0 || services.config.userRateLimit.concurrency > 0,
  });
  return { routes, modules, document };
}
