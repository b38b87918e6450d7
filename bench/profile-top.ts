import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

// Reads a V8 .cpuprofile (from `BENCH_PROFILE=1 make bench`, or any `node --cpu-prof` run) and prints the
// functions with the most self time, and the packages / files they live in. Usage:
//   npx tsx bench/profile-top.ts bench/results/profiles/<file>.cpuprofile [how many, default 30]

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/koa-helmet/…` → `koa-helmet`; our files → their path; V8/Node internals → `(node)`. */
function owner(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return '(node)';
  const path = url.replace(/^file:\/\//, '');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules) return inModules[1];
  return relative(process.cwd(), path);
}

function main(): void {
  const [file, countArg] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: tsx bench/profile-top.ts <file.cpuprofile> [count]\n');
    process.exit(2);
  }
  const count = Math.min(Math.max(Number(countArg ?? 30) || 30, 1), 200);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const label = (frame: CallFrame) =>
    `${frame.functionName || '(anonymous)'}  ${owner(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;

  // Self time: each sample is charged to the node on top of the stack for the delta that follows it.
  // Total time: the same delta is charged once to every distinct function on that stack (synchronous
  // callers only: after an await, a continuation's stack starts again at the microtask queue).
  // Idle samples are left out, so the percentages are shares of the time the process was busy.
  const selfByFunction = new Map<string, number>();
  const selfByOwner = new Map<string, number>();
  const totalByFunction = new Map<string, number>();
  // Attributed: Node's own work (setHeader, socket writes, …) is charged to the nearest caller outside
  // Node, so a package is charged for the headers it sets and the writes it makes.
  const attributedByOwner = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index + 1] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') return;
    busy += micros;
    const where = owner(frame.url);
    selfByFunction.set(label(frame), (selfByFunction.get(label(frame)) ?? 0) + micros);
    selfByOwner.set(where, (selfByOwner.get(where) ?? 0) + micros);
    const onStack = new Set<string>();
    let attributedTo: string | undefined;
    for (let at: number | undefined = id, depth = 0; at !== undefined && depth < 500; at = parentOf.get(at), depth++) {
      const callFrame = byId.get(at)?.callFrame;
      if (!callFrame?.url) continue;
      onStack.add(label(callFrame));
      if (attributedTo === undefined && !callFrame.url.startsWith('node:')) attributedTo = owner(callFrame.url);
    }
    attributedTo ??= where === '(native)' ? '(native, no JS caller)' : where;
    attributedByOwner.set(attributedTo, (attributedByOwner.get(attributedTo) ?? 0) + micros);
    for (const name of onStack) totalByFunction.set(name, (totalByFunction.get(name) ?? 0) + micros);
  });
  const total = busy;

  const print = (title: string, entries: Map<string, number>, limit: number) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      process.stdout.write(
        `${((micros / total) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}\n`,
      );
    }
  };
  process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s busy (idle left out; start-up included)\n`);
  print('self time by package / file', selfByOwner, 25);
  print('time by package / file, with Node internals charged to their caller', attributedByOwner, 25);
  print(`top ${count} functions by self time`, selfByFunction, count);
  print(`top ${count} JavaScript functions by total time (self + synchronous callees)`, totalByFunction, count);
}

main();
