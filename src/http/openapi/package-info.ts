import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface PackageInfo {
  name: string;
  version: string;
  description?: string;
}

/**
 * The service's package.json: the nearest one above this file, which is the repository's from src/ (tsx,
 * jest) and from dist/ (the build, the container image) alike.
 */
export function readPackageInfo(from: string = __dirname): PackageInfo {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return JSON.parse(readFileSync(candidate, 'utf8')) as PackageInfo;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
