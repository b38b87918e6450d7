import { loadConfig } from '../../src/config/config';
import { createLogger } from '../../src/logger';
import { startService } from '../../src/service';
import { packageName } from './loaded-package-name';

// Run in a child process (test/service/loaded-packages.test.ts): starts the real service from the
// environment it is given, answers GET / and a login over HTTP, and prints the npm packages present in
// require.cache as one JSON array. Jest's module registry does not fill require.cache, hence the child.

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const service = await startService(config, createLogger(config), { port: 0, host: '127.0.0.1' });
  try {
    const base = `http://127.0.0.1:${service.port}`;
    await (await fetch(`${base}/`)).text();
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: config.demoUser.email, password: config.demoUser.password }),
    });
    if (login.status !== 200) throw new Error(`login answered ${login.status}`);
    const packages = new Set(
      Object.keys(require.cache)
        .map(packageName)
        .filter((name) => name !== undefined),
    );
    process.stdout.write(`${JSON.stringify([...packages].sort())}\n`);
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
