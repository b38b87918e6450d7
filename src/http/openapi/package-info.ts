import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface PackageInfo {
  name: string;
  version: string;
  description?: string;
  /** An SPDX identifier (package.json `license`). */
  license?: string;
}

/**
 * The folder of the service's package.json: the nearest one above this file, which is the repository's
 * from src/ (tsx, jest) and from dist/ (the build, the container image) alike.
 */
export function packageRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export function readPackageInfo(): PackageInfo {
  return JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as PackageInfo;
}
