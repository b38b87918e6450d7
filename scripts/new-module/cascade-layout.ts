import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { refuseMultipleCascadePaths } from '../../src/stores/kit/cascade-paths';
import type { Fields, ReferencedResource } from '../../src/stores/kit/fields';
import { declaredFields } from './declaration';
import { SpecError } from './field-spec';

// The kit refuses, when a resource is declared, a layout that gives one table two cascade paths to another
// (SQL Server's Msg 1785: cascade-paths.ts). The generator asks the same question of the declarations as
// written, before it writes a module that would then fail to start: the kit's own check, run on the
// modules' resource.ts files as their syntax trees declare them.

type Walked = ReferencedResource & { fields: Fields };

/** A module as the kit's check walks it: its name and its references, each resolving to the module it names, read on demand. */
function walked(root: string, module: string, source: string | undefined): Walked {
  const text =
    source ??
    (existsSync(path.join(root, `src/modules/${module}/resource.ts`))
      ? readFileSync(path.join(root, `src/modules/${module}/resource.ts`), 'utf8')
      : '');
  const fields: Record<string, unknown> = {};
  for (const field of text ? declaredFields(text) : []) {
    const target = field.reference?.module;
    if (!target) continue;
    const onDelete = field.option.onDelete === "'cascade'" ? 'cascade' : 'restrict';
    fields[field.name] = { references: { onDelete, resource: () => walked(root, target, undefined) } };
  }
  return { name: module, table: module, modelName: module, fields: fields as Fields };
}

/** Refuses (a SpecError naming both paths) the declaration `source` of `module` when the kit would refuse it at start-up. */
export function refuseCascadeLayout(root: string, module: string, source: string): void {
  try {
    refuseMultipleCascadePaths(walked(root, module, source));
  } catch (error) {
    throw new SpecError(`${(error as Error).message} (e.g. ref:<module>:restrict)`);
  }
}
