import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Validates a document with an independent OpenAPI validator (its own copy of the official 3.1 schema). */
export function validateOpenApi(document: object): { valid: boolean; version: string; errors: unknown } {
  const output = execFileSync(process.execPath, [join(__dirname, 'validate-openapi.mjs')], {
    input: JSON.stringify(document),
    encoding: 'utf8',
  });
  return JSON.parse(output) as { valid: boolean; version: string; errors: unknown };
}
