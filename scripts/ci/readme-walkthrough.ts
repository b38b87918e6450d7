// Runs README's walkthroughs exactly as written, in order, in the directory it is started in (CI: a scratch
// copy of the repository), and fails when any answer differs from what README shows.
//
// A walkthrough is a ```sh block right after a `<!-- walkthrough -->` line. In it, a command is a line (with
// its `\` continuations); the `# …` lines right after a command are its expected output, where `…` stands
// for anything. Other comment lines are prose. `make run` starts the service in the background, waits until
// it answers, and stops the previous one: the reader runs it in a terminal of its own. All commands share one
// shell, so variables (TOKEN) live on from one block to the next, as in the reader's second terminal.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Step {
  command: string;
  expected: string[];
}

export function walkthroughSteps(readme: string): Step[] {
  const steps: Step[] = [];
  const blocks = readme
    .split('<!-- walkthrough -->\n```sh\n')
    .slice(1)
    .map((rest) => rest.slice(0, rest.indexOf('\n```')));
  for (const block of blocks) {
    let current: Step | undefined;
    let continuing = false;
    for (const line of block.split('\n')) {
      if (continuing && current) {
        current.command += `\n${line}`;
        continuing = line.endsWith('\\');
      } else if (line.startsWith('# ') || line === '#') {
        if (current) current.expected.push(line.slice(2));
      } else if (line.trim() === '') {
        current = undefined; // a blank line ends a step: comments after it are prose
      } else {
        current = { command: line.replace(/\s+#.*$/, ''), expected: [] };
        steps.push(current);
        continuing = line.endsWith('\\');
      }
    }
  }
  return steps;
}

/** The expected text with `…` as "anything", as a whole-text regular expression. */
function pattern(expected: string[]): RegExp {
  const escaped = expected
    .join('\n')
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[\\s\\S]*?')}$`);
}

const PORT = 3000;

async function waitForService(child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 600_000; // `make run` may install and build first
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`make run exited with ${child.exitCode}:\n${readFileSync(log, 'utf8').slice(-2000)}`);
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('make run did not answer within 10 minutes');
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM'); // make and the node it started
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
}

async function main(): Promise<number> {
  const steps = walkthroughSteps(readFileSync('README.md', 'utf8'));
  if (steps.length === 0) throw new Error('README has no walkthrough blocks');
  const work = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  const state = join(work, 'state.sh');
  writeFileSync(state, '');
  let service: ChildProcess | undefined;
  let failures = 0;
  try {
    for (const [index, step] of steps.entries()) {
      if (step.command.trim() === 'make run') {
        await stop(service);
        const log = join(work, `make-run-${index}.log`);
        const out = (await import('node:fs')).openSync(log, 'w');
        service = spawn('make', ['run'], { stdio: ['ignore', out, out], detached: true });
        await waitForService(service, log);
        console.log(`ok   make run (answering on :${PORT})`);
        continue;
      }
      // One shell in effect: each step sources the variables the earlier ones left, and saves its own.
      const script = `set -o pipefail\nsource ${state}\n${step.command}\nstatus=$?\ndeclare -p TOKEN 2>/dev/null > ${state}\nexit $status`;
      const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 600_000 });
      const output = `${run.stdout}${run.stderr}`.replace(/\s+$/, '');
      const shown = step.command.split('\n')[0];
      if (run.status !== 0) {
        failures += 1;
        console.log(`FAIL ${shown}\n     exit ${run.status}\n${output}`);
      } else if (step.expected.length > 0 && !pattern(step.expected).test(output)) {
        failures += 1;
        console.log(`FAIL ${shown}\n     README shows: ${step.expected.join('\n')}\n     answer:       ${output}`);
      } else {
        console.log(`ok   ${shown}`);
      }
    }
  } finally {
    await stop(service);
  }
  console.log(`walkthrough: ${steps.length - failures} passed, ${failures} failed`);
  return failures === 0 ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
