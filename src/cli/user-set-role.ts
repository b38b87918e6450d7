// npm run user:set-role -- --email a@example.com --role admin
// Changes a database user's role (USER_STORE=database; DATABASE_URL / MONGO_URI; migrations applied first).
// The role must be one of ROLES. It reaches the user's next access token: refresh reads the user again.
import { parseArgs } from 'node:util';
import { userStore } from '../auth/stores/definitions';
import { ConfigError, loadConfig } from '../config/config';
import { createLogger } from '../logger';
import { modules } from '../modules';
import { storesOf } from '../services';
import { createDatabase } from '../stores/create-database';

const USAGE = 'usage: npm run user:set-role -- --email <email> --role <role>';

class UsageError extends Error {}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, role: { type: 'string' } }, strict: true });
  if (!values.email || !values.role) throw new UsageError('--email and --role are required');
  const config = loadConfig();
  const role = values.role.trim();
  if (!config.roles.includes(role)) throw new UsageError(`--role must be one of ROLES: ${config.roles.join(', ')}`);

  const logger = createLogger({ env: config.env, logLevel: 'warn' });
  const database = createDatabase(config, logger, storesOf(modules), { cleanupJob: false });
  await database.connect();
  try {
    await database.migrate();
    const users = database.store(userStore);
    const user = await users.findByEmail(values.email); // the store normalises the email
    if (!user) throw new UsageError(`no user has the email ${values.email.trim().toLowerCase()}`);
    await users.updateRole(user.id, role);
    process.stdout.write(`${user.id} ${user.role} -> ${role}\n`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError || String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `user:set-role failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
