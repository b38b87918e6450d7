import type { Fields, ReferencedResource } from './fields';

// SQL Server refuses a foreign key that gives a table two ON DELETE CASCADE paths from one other table, or a
// cycle of them (Msg 1785, "may cause cycles or multiple cascade paths"): two cascading references from one
// table to another, a diamond (B and C cascade from A, D cascades from both), a shortcut (D cascades from B
// and from A, B from A). The other engines accept these, so the migration would fail on SQL Server only, and
// only at deploy. The kit refuses such a layout when the resource is declared, on every engine: a module
// that runs on SQLite runs on SQL Server. 'restrict' references (NO ACTION) are not cascade paths.

/** Enough of a resource to walk its cascading references upward (a declared one has its fields). */
type Walked = ReferencedResource & { readonly fields?: Fields };

/** One cascade path up from a resource: the references followed (`resource.field`) and where it ends. */
interface CascadePath {
  readonly steps: readonly string[];
  readonly reaches: string;
}

/** Every cascade path up from `resource`, each prefix its own path (it reaches the table it stops at). */
function cascadePathsUp(resource: Walked, below: readonly string[]): CascadePath[] {
  const paths: CascadePath[] = [];
  for (const [field, definition] of Object.entries(resource.fields ?? {})) {
    if (definition.references?.onDelete !== 'cascade') continue;
    const target = definition.references.resource() as Walked;
    const step = `${resource.name}.${field}`;
    if (below.includes(target.name)) {
      throw new Error(
        `cascading references form a cycle: ${[...below.slice(below.indexOf(target.name)), target.name].join(' → ')} (via ${step}); SQL Server refuses it (Msg 1785): make one of them onDelete 'restrict'`,
      );
    }
    paths.push({ steps: [step], reaches: target.name });
    for (const above of cascadePathsUp(target, [...below, target.name]))
      paths.push({ steps: [step, ...above.steps], reaches: above.reaches });
  }
  return paths;
}

const spelled = (path: CascadePath) => [...path.steps, path.reaches].join(' → ');

/**
 * Refuses a resource that a record of another resource would reach by two cascade paths (see above),
 * naming both. The resources it references are declared before it, so checking each new one suffices.
 */
export function refuseMultipleCascadePaths(resource: Walked): void {
  const byTable = new Map<string, CascadePath[]>();
  for (const path of cascadePathsUp(resource, [resource.name]))
    byTable.set(path.reaches, [...(byTable.get(path.reaches) ?? []), path]);
  for (const [table, paths] of byTable) {
    if (paths.length < 2) continue;
    throw new Error(
      `resource '${resource.name}': deleting a '${table}' record would reach it by ${paths.length} cascade paths, ${paths.map(spelled).join(' and ')}; ` +
        `SQL Server refuses such foreign keys (Msg 1785, multiple cascade paths), so the kit does on every engine: make all but one of them onDelete 'restrict'`,
    );
  }
}
