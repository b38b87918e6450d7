import type { ModuleFactory } from '../services';
import { authModule } from './auth';
import { usersModule } from './users';

/**
 * The module registry: every module listed here is mounted under /api/<name>/.
 * To add a module, write src/modules/<name>/ and list its factory below (see README, "A module of your own").
 */
export const modules: ModuleFactory[] = [authModule, usersModule];
