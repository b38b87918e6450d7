import type { ModuleFactory } from '../services';
import { authModule } from './auth';
import { usersModule } from './users';

/**
 * The module registry: every module listed here is mounted under /api/<name>/.
 * To add a module, write src/modules/<name>/ and list its factory below (see README, "Adding a module").
 */
export const modules: ModuleFactory[] = [authModule, usersModule];
