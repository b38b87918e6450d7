// The service of a scratch copy started on databases, as a team starts it, for scripts/ci/module-removal.sh
// (usage: module-removal.ts empty|fill|removed [--fresh] <database url>...; --fresh empties each one first):
//   empty         the database emptied (a fresh one: no table, no migration history);
//   fill          the service started (its migrations run at start-up, then the start-up check), and a
//                 project, a ticket in it, a label and the ticket's label written and read back over HTTP
//                 as the demo user; a second label pair refused (the join's unique key);
//   removed       the service started with the modules removed: their routes answer 404.
// Each start must answer GET / within two minutes; the service is then stopped (SIGTERM) and must exit 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { Sequelize } from 'sequelize';

const TRACKER = ['projects', 'tickets', 'labels', 'ticket-labels'];

async function emptied(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    rmSync(url.slice('sqlite:'.length), { force: true });
    return;
  }
  const sequelize = new Sequelize(url, { logging: false });
  try {
    if (url.startsWith('postgres')) {
      await sequelize.query('DROP SCHEMA public CASCADE');
      await sequelize.query('CREATE SCHEMA public');
      return;
    }
    const [rows] = await sequelize.query(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()',
    );
    await sequelize.query('SET FOREIGN_KEY_CHECKS = 0');
    for (const { name } of rows as { name: string }[]) await sequelize.query(`DROP TABLE \`${name}\``);
  } finally {
    await sequelize.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The service of this copy on `url`, answering on its port; its output kept for the error message. */
async function started(url: string): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  const port = await freePort();
  // tsx as a loader of this node (no tsx process between): the SIGTERM reaches the service itself.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the service exited with ${child.exitCode} at start-up:\n${output.slice(-3000)}`);
    const answered = await fetch(`${base}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return { child, base, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  child.kill('SIGTERM');
  throw new Error(`the service did not answer within two minutes:\n${output.slice(-3000)}`);
}

async function stopped(child: ChildProcess, output: () => string): Promise<void> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const code = await Promise.race([
    exited,
    new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 20_000)),
  ]);
  if (code !== 0) throw new Error(`the service did not stop cleanly (${code}):\n${output().slice(-3000)}`);
}

async function call(
  base: string,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; data: Record<string, unknown> }> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json().catch(() => ({}))) as { data?: Record<string, unknown> };
  return { status: response.status, data: json.data ?? {} };
}

function expectStatus(what: string, got: { status: number; data: unknown }, status: number): void {
  if (got.status !== status)
    throw new Error(`${what}: expected ${status}, got ${got.status} ${JSON.stringify(got.data)}`);
}

async function filled(base: string, token: string): Promise<string> {
  const stamp = `${Date.now()}`;
  const project = await call(base, token, 'POST', '/api/projects', { name: `project ${stamp}` });
  expectStatus('POST /api/projects', project, 201);
  const ticket = await call(base, token, 'POST', '/api/tickets', {
    title: `ticket ${stamp}`,
    project: project.data.id,
  });
  expectStatus('POST /api/tickets', ticket, 201);
  const label = await call(base, token, 'POST', '/api/labels', { name: `label ${stamp}` });
  expectStatus('POST /api/labels', label, 201);
  const link = { ticket: ticket.data.id, label: label.data.id };
  expectStatus('POST /api/ticket-labels', await call(base, token, 'POST', '/api/ticket-labels', link), 201);
  expectStatus('POST /api/ticket-labels again', await call(base, token, 'POST', '/api/ticket-labels', link), 409);
  const listed = await call(base, token, 'GET', `/api/ticket-labels?ticket=${String(ticket.data.id)}&include=label`);
  expectStatus('GET /api/ticket-labels', listed, 200);
  const items = listed.data.items as { included?: { label?: { name?: string } } }[];
  if (items.length !== 1 || items[0]!.included?.label?.name !== `label ${stamp}`)
    throw new Error(`the ticket's label did not read back: ${JSON.stringify(listed.data)}`);
  const count = await call(base, token, 'GET', '/api/tickets?count=true');
  return `a project, a ticket, a label and their link written and read back (${String(count.data.total ?? '?')} tickets there)`;
}

async function checked(mode: string, url: string): Promise<void> {
  const { child, base, output } = await started(url);
  try {
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'demo@example.com', password: 'demo-password' }),
    });
    const token = ((await login.json()) as { data: { accessToken: string } }).data.accessToken;
    let said: string;
    if (mode === 'fill') said = await filled(base, token);
    else {
      for (const module of TRACKER)
        expectStatus(`GET /api/${module} after its removal`, await call(base, token, 'GET', `/api/${module}`), 404);
      said = 'the removed modules answer 404';
    }
    console.log(`module-removal: ${url.replace(/:[^:@/]*@/, ':***@')}: started; ${said}`);
  } finally {
    await stopped(child, output);
  }
}

async function main([mode = '', ...rest]: string[]): Promise<void> {
  const fresh = rest.includes('--fresh');
  const urls = rest.filter((argument) => argument !== '--fresh');
  if (!['empty', 'fill', 'removed'].includes(mode) || urls.length === 0)
    throw new Error(`usage: module-removal.ts empty|fill|removed [--fresh] <database url>...`);
  for (const url of urls) {
    if (mode === 'empty' || fresh) await emptied(url);
    if (mode !== 'empty') await checked(mode, url);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
